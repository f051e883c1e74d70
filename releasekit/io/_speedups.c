/* Optional compiled helpers for releasekit.io.fbc_load; every function here has a pure-Python twin in
 * that module, which is used when this extension was not built, and tests hold the two equal.
 *
 * yaml11_risk(value, words, number) -> int
 *     The walk of fbc_load._yaml11_risk_py over one parsed YAML document (see its docstring): 0 when
 *     yaml-rs's reading may be trusted, 1 when it holds integers (whose text must be looked at), 2 when
 *     the document must be read again by PyYAML. `words` is a frozenset of the plain strings YAML 1.1
 *     reads otherwise; `number(text)` says whether PyYAML reads a string as a number (called only for a
 *     string that starts with a character from '+' to '9' and holds ':' or '_').
 *
 * screen(data, classes, columns) -> (bracket_bound, long_indent, first_control, ascii, tag)
 *     One pass over YAML bytes for inputs.screen_yaml (see _screen_py there). `classes` is a 256-byte
 *     table from inputs: which bytes are forbidden controls, opening or closing brackets, indentation or
 *     block indicator characters, the newline, or not ASCII. bracket_bound is an upper bound of the flow
 *     nesting, never below inputs._bracket_depth_bound's; long_indent says whether a line starts with
 *     `columns` or more indentation characters; first_control is the offset of the first forbidden
 *     control byte (-1 if none); ascii says whether every byte is below 0x80; tag whether a '!' stands
 *     where a token may start (first, or after a blank, a line break, a comma or a flow or block
 *     indicator).
 *
 * bracket_bound(data) -> int
 *     An upper bound of the bracket nesting alone (JSON nests by brackets only), never below
 *     inputs._bracket_depth_bound's; for balanced brackets, their depth.
 *
 * The walk keeps borrowed references on its own stack: the document is owned by the caller and nothing
 * here changes it. It is iterative (a deep document cannot overflow the C stack; the loader bounds the
 * depth before parsing anyway), and the stack grows on the heap.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>

/* which of the 16 bytes may stop the screen's loop (a bit each): a byte up to 0x1F (controls, the
   newline), DEL, a bracket or '!' */
static inline int
block_stops(__m128i block)
{
    __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(block, _mm_set1_epi8(0x1F)), block);
    __m128i folded = _mm_or_si128(block, _mm_set1_epi8(0x20)); /* '[' and '{' alike, ']' and '}' alike */
    __m128i brackets =
        _mm_or_si128(_mm_cmpeq_epi8(folded, _mm_set1_epi8('{')), _mm_cmpeq_epi8(folded, _mm_set1_epi8('}')));
    __m128i stops = _mm_or_si128(_mm_or_si128(control, _mm_cmpeq_epi8(block, _mm_set1_epi8(0x7F))), brackets);
    stops = _mm_or_si128(stops, _mm_cmpeq_epi8(block, _mm_set1_epi8('!')));
    return _mm_movemask_epi8(stops);
}
#endif

#define SAFE 0
#define INTEGERS 1
#define REREAD 2

typedef struct {
    PyObject **items;
    Py_ssize_t size;
    Py_ssize_t capacity;
} Stack;

/* room for `more` items on the stack; -1 with an exception set */
static int
stack_reserve(Stack *stack, Py_ssize_t more)
{
    if (stack->size + more <= stack->capacity) {
        return 0;
    }
    Py_ssize_t capacity = stack->capacity;
    while (capacity < stack->size + more) {
        capacity *= 2;
    }
    PyObject **grown = PyMem_Realloc(stack->items, (size_t)capacity * sizeof(PyObject *));
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    stack->items = grown;
    stack->capacity = capacity;
    return 0;
}

/* REREAD, or SAFE; -1 with an exception set */
static int
string_risk(PyObject *text, PyObject *words, PyObject *number)
{
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    if (length == 0) {
        return SAFE;
    }
    Py_UCS4 first = PyUnicode_READ_CHAR(text, 0);
    if (first < ':') {
        if (first < '+') {
            return SAFE;
        }
        if (PyUnicode_FindChar(text, ':', 0, length, 1) < 0
            && PyUnicode_FindChar(text, '_', 0, length, 1) < 0) {
            return SAFE;
        }
        PyObject *answer = PyObject_CallOneArg(number, text);
        if (answer == NULL) {
            return -1;
        }
        int truth = PyObject_IsTrue(answer);
        Py_DECREF(answer);
        if (truth < 0) {
            return -1;
        }
        return truth ? REREAD : SAFE;
    }
    if (length < 4) {
        int found = PySet_Contains(words, text);
        if (found < 0) {
            return -1;
        }
        return found ? REREAD : SAFE;
    }
    return SAFE;
}

static PyObject *
yaml11_risk(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *value, *words, *number;
    if (!PyArg_ParseTuple(args, "OO!O:yaml11_risk", &value, &PyFrozenSet_Type, &words, &number)) {
        return NULL;
    }
    Stack stack = {PyMem_Malloc(256 * sizeof(PyObject *)), 0, 256};
    if (stack.items == NULL) {
        return PyErr_NoMemory();
    }
    int result = SAFE;
    stack.items[stack.size++] = value;
    while (stack.size > 0 && result != REREAD && result >= 0) {
        PyObject *item = stack.items[--stack.size];
        if (PyUnicode_CheckExact(item)) {
            int risk = string_risk(item, words, number);
            result = risk == SAFE ? result : risk;
        }
        else if (PyDict_CheckExact(item)) {
            if (stack_reserve(&stack, 2 * PyDict_GET_SIZE(item)) < 0) {
                result = -1;
                break;
            }
            Py_ssize_t at = 0;
            PyObject *key, *entry;
            while (PyDict_Next(item, &at, &key, &entry)) {
                stack.items[stack.size++] = key;
                stack.items[stack.size++] = entry;
            }
        }
        else if (PyList_CheckExact(item)) {
            Py_ssize_t length = PyList_GET_SIZE(item);
            if (stack_reserve(&stack, length) < 0) {
                result = -1;
                break;
            }
            memcpy(stack.items + stack.size, PySequence_Fast_ITEMS(item), (size_t)length * sizeof(PyObject *));
            stack.size += length;
        }
        else if (PyLong_CheckExact(item)) {
            result = INTEGERS;
        }
        else if (item != Py_None && !PyBool_Check(item)) {
            result = REREAD; /* a float, or something that is not JSON (a tuple or frozenset key) */
        }
    }
    PyMem_Free(stack.items);
    if (result < 0) {
        return NULL;
    }
    return PyLong_FromLong(result);
}

/* byte classes: the values of inputs._SCREEN_CLASSES */
#define C_PLAIN 0
#define C_CONTROL 1
#define C_OPEN 2
#define C_CLOSE 3
#define C_INDENT 4
#define C_NEWLINE 5
#define C_HIGH 6
#define C_BANG 7      /* '!': a tag where a token starts */
#define C_SEPARATOR 8 /* ',' and CR: a token may start after them (as after C_INDENT, C_NEWLINE, brackets) */

static PyObject *
screen(PyObject *module, PyObject *args)
{
    (void)module;
    Py_buffer data, classes;
    Py_ssize_t columns;
    if (!PyArg_ParseTuple(args, "y*y*n:screen", &data, &classes, &columns)) {
        return NULL;
    }
    if (classes.len != 256) {
        PyBuffer_Release(&data);
        PyBuffer_Release(&classes);
        PyErr_SetString(PyExc_ValueError, "classes must be 256 bytes");
        return NULL;
    }
    const unsigned char *bytes = data.buf;
    const unsigned char *table = classes.buf;
    Py_ssize_t size = data.len;
    Py_ssize_t depth = 0, deepest = 0, unmatched_closing = 0, first_control = -1;
    int long_indent = columns <= 0, non_ascii = 0, tag = 0;
#if defined(__SSE2__)
    /* the bytes of a block of 16 before the first one block_stops flags are passed over; that holds
       only if every byte that stops the loop below is one it flags (true of inputs' table; checked here) */
    int by_blocks = 1;
    for (int byte = 0; byte < 256; byte++) {
        unsigned char kind = table[byte];
        int stops = kind == C_NEWLINE || kind == C_OPEN || kind == C_CLOSE || kind == C_CONTROL || kind == C_BANG;
        if (stops && !(byte <= 0x1F || byte == 0x7F || (byte | 0x20) == '{' || (byte | 0x20) == '}' || byte == '!')) {
            by_blocks = 0;
        }
    }
#endif
    /* the start of the first line, then of every line: its indentation */
    Py_ssize_t at = 0;
    for (;;) {
        Py_ssize_t indent = 0;
        while (at < size && table[bytes[at]] == C_INDENT) {
            at++;
            if (++indent >= columns) {
                long_indent = 1;
            }
        }
        /* the rest of the line: only the rare classes stop the loop */
        for (; at < size; at++) {
#if defined(__SSE2__)
            if (by_blocks && at + 16 <= size) {
                /* to the block's first byte that may stop the loop, past the whole block if none */
                __m128i block = _mm_loadu_si128((const __m128i *)(bytes + at));
                int stops = block_stops(block);
                non_ascii |= _mm_movemask_epi8(block);
                if (stops == 0) {
                    at += 15; /* and the loop's own step */
                    continue;
                }
                at += __builtin_ctz((unsigned)stops);
            }
#endif
            unsigned char byte = bytes[at];
            unsigned char kind = table[byte];
            non_ascii |= byte & 0x80;
            if (kind == C_PLAIN || kind == C_INDENT || kind == C_HIGH || kind == C_SEPARATOR) {
                continue;
            }
            if (kind == C_NEWLINE) {
                break;
            }
            if (kind == C_BANG) {
                unsigned char before = at == 0 ? C_NEWLINE : table[bytes[at - 1]];
                tag |= before == C_INDENT || before == C_NEWLINE || before == C_OPEN || before == C_CLOSE ||
                       before == C_SEPARATOR;
                continue;
            }
            if (kind == C_OPEN) {
                if (++depth > deepest) {
                    deepest = depth;
                }
            }
            else if (kind == C_CLOSE) {
                if (depth > 0) {
                    depth--;
                }
                else {
                    unmatched_closing++;
                }
            }
            else if (first_control < 0) { /* C_CONTROL */
                first_control = at;
            }
        }
        if (at >= size) {
            break;
        }
        at++; /* past the newline */
    }
    PyBuffer_Release(&data);
    PyBuffer_Release(&classes);
    /* deepest bounds the nesting of the pairs that match; depth is what stayed open, and each
       unmatched bracket may count once more (as inputs._bracket_depth_bound counts it) */
    return Py_BuildValue("(nNnNN)", deepest + depth + unmatched_closing, PyBool_FromLong(long_indent),
                         first_control, PyBool_FromLong(!non_ascii), PyBool_FromLong(tag));
}

/* one byte of bracket_bound: the running depth and its highest and lowest values */
static inline void
follow_bracket(unsigned char byte, Py_ssize_t *running, Py_ssize_t *high, Py_ssize_t *low)
{
    byte |= 0x20; /* '[' and '{' alike, ']' and '}' alike */
    *running += (byte == '{') - (byte == '}');
    *high = *running > *high ? *running : *high;
    *low = *running < *low ? *running : *low;
}

static PyObject *
bracket_bound(PyObject *module, PyObject *arg)
{
    (void)module;
    Py_buffer data;
    if (PyObject_GetBuffer(arg, &data, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    const unsigned char *bytes = data.buf;
    /* the running depth (+1 per opening bracket, -1 per closing one, never clamped), its highest and
       lowest values (the lowest at most 0); (high - low) bounds the nesting of the pairs that match,
       -low counts the closing brackets with none open, (running - low) the opening ones never closed */
    Py_ssize_t running = 0, high = 0, low = 0, at = 0;
#if defined(__SSE2__)
    /* 16 bytes at a time: within a block the running depth rises by at most the block's opening brackets
       and falls by at most its closing ones, so a block that cannot hold a new highest or lowest value is
       passed over by counting its brackets; the others are followed byte by byte below */
    const __m128i case_bit = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
    for (; at + 16 <= data.len; at += 16) {
        __m128i folded = _mm_or_si128(_mm_loadu_si128((const __m128i *)(bytes + at)), case_bit);
        unsigned opens = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(folded, open)); /* '[' or '{' */
        unsigned closes = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(folded, close)); /* ']' or '}' */
        if ((opens | closes) == 0) {
            continue; /* most blocks: no bracket (and counting bits is a call without POPCNT) */
        }
        Py_ssize_t up = __builtin_popcount(opens), down = __builtin_popcount(closes);
        if (running + up <= high && running - down >= low) {
            running += up - down; /* no new highest or lowest value can be in this block */
            continue;
        }
        for (int offset = 0; offset < 16; offset++) {
            follow_bracket(bytes[at + offset], &running, &high, &low);
        }
    }
#endif
    for (; at < data.len; at++) {
        follow_bracket(bytes[at], &running, &high, &low);
    }
    PyBuffer_Release(&data);
    return PyLong_FromSsize_t((high - low) + (running - low) - low);
}

static PyMethodDef methods[] = {
    {"bracket_bound", bracket_bound, METH_O,
     "bracket_bound(data) -> int: screen's bracket bound alone; see releasekit.io.inputs."},
    {"screen", screen, METH_VARARGS,
     "screen(data, classes, columns) -> (bracket_bound, long_indent, first_control, ascii, tag): see "
     "releasekit.io.inputs._screen_py."},
    {"yaml11_risk", yaml11_risk, METH_VARARGS,
     "yaml11_risk(value, words, number) -> 0, 1 or 2: see releasekit.io.fbc_load._yaml11_risk_py."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    "releasekit.io._speedups",
    "Optional compiled twins of pure-Python helpers in releasekit.io.fbc_load.",
    0,
    methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    return PyModule_Create(&module);
}
