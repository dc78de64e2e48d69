/*
 * Move generation kernel for rules_core.movegen (Appel & Jacobson 1988 on a DAWG).
 *
 * Conventions (see rules_core/alphabet.py and rules_core/wordgraph.py):
 *   - a board is 225 bytes, row-major, row A first; 0 is an empty square, 1..28 a
 *     letter, letter|0x80 a blank placed as that letter;
 *   - a rack is bytes of tiles, 0 for an unassigned blank;
 *   - the word graph is the packed uint32 edge array of wordgraph.py.
 * Each pass works on a row-major grid; the vertical pass runs on the transposed
 * board, so "row" below is the line of play and "col" the position along it.
 *
 * generate(edges, board, rack, letter_mult, word_mult, values, upper, lower,
 *          bingo_tiles, bingo_bonus)
 * returns a list of (notation: str, score: int, row: int, col: int, down: bool,
 * word: bytes) sorted by score descending, then notation bytes ascending. ``word``
 * holds every tile of the main word, board tiles included.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N 15
#define LETTERS 28
#define BLANK_BIT 0x80
#define LETTER_MASK 0x7F
#define CHILD_MASK ((1u << 22) - 1)
#define IS_LAST (1u << 22)
#define ACCEPTS (1u << 23)
#define TILE_SHIFT 24
#define MAX_LABEL 4
#define MAX_NOTATION 48

typedef struct {
    int16_t score;
    uint8_t row, col, down, len, notation_len;
    uint8_t word[N];
    char notation[MAX_NOTATION];
} Move;

typedef struct {
    const uint32_t *edges;
    Py_ssize_t edge_count;
    /* current orientation */
    uint8_t board[N][N];
    uint8_t lm[N][N], wm[N][N];
    uint32_t cross[N][N];   /* letters allowed by the perpendicular word, bit L */
    int cross_score[N][N];  /* points of the perpendicular tiles, -1 if none */
    uint8_t anchor[N][N];
    int down;               /* 1 in the vertical pass */
    int row, anchor_col;
    /* shared */
    int values[LETTERS + 1];
    char upper[LETTERS + 1][MAX_LABEL], lower[LETTERS + 1][MAX_LABEL];
    int upper_len[LETTERS + 1], lower_len[LETTERS + 1];
    int rack[LETTERS + 1];  /* counts; index 0 = blanks */
    int bingo_tiles, bingo_bonus;
    uint8_t placed[N];
    uint8_t left[N];
    /* output */
    Move *moves;
    size_t count, capacity;
    int failed;
} Gen;

static inline uint32_t root_node(const Gen *g) { return g->edges[0] & CHILD_MASK; }

/* Index of the edge for letter in the node starting at node, or -1. */
static inline long find_child(const Gen *g, uint32_t node, int letter) {
    if (node == 0) return -1;
    for (uint32_t i = node;; i++) {
        uint32_t e = g->edges[i];
        int t = (int)(e >> TILE_SHIFT);
        if (t == letter) return (long)i;
        if (t > letter || (e & IS_LAST)) return -1;
    }
}

static inline int tile_points(const Gen *g, int tile) {
    return (tile & BLANK_BIT) ? 0 : g->values[tile & LETTER_MASK];
}

static void compute_cross(Gen *g) {
    for (int r = 0; r < N; r++) {
        for (int c = 0; c < N; c++) {
            g->cross[r][c] = 0;
            g->cross_score[r][c] = -1;
            g->anchor[r][c] = 0;
            if (g->board[r][c]) continue;
            int up = r, down = r;
            while (up > 0 && g->board[up - 1][c]) up--;
            while (down < N - 1 && g->board[down + 1][c]) down++;
            int left_n = c > 0 && g->board[r][c - 1];
            int right_n = c < N - 1 && g->board[r][c + 1];
            if (up == r && down == r) {
                g->cross[r][c] = ~0u;
                g->anchor[r][c] = (uint8_t)(left_n || right_n);
                continue;
            }
            g->anchor[r][c] = 1;
            int points = 0;
            uint32_t node = root_node(g);
            int ok = 1;
            for (int i = up; i < r; i++) {
                points += tile_points(g, g->board[i][c]);
                long e = find_child(g, node, g->board[i][c] & LETTER_MASK);
                if (e < 0) { ok = 0; break; }
                node = g->edges[e] & CHILD_MASK;
            }
            for (int i = r + 1; i <= down; i++) points += tile_points(g, g->board[i][c]);
            g->cross_score[r][c] = points;
            if (!ok || node == 0) continue;
            uint32_t mask = 0;
            for (uint32_t i = node;; i++) {
                uint32_t e = g->edges[i];
                int letter = (int)(e >> TILE_SHIFT);
                int accepted = (e & ACCEPTS) != 0;
                uint32_t next = e & CHILD_MASK;
                for (int j = r + 1; j <= down; j++) {
                    long f = find_child(g, next, g->board[j][c] & LETTER_MASK);
                    if (f < 0) { accepted = 0; break; }
                    accepted = (g->edges[f] & ACCEPTS) != 0;
                    next = g->edges[f] & CHILD_MASK;
                }
                if (accepted) mask |= 1u << letter;
                if (e & IS_LAST) break;
            }
            g->cross[r][c] = mask;
        }
    }
}

static int push_move(Gen *g, Move *m) {
    if (g->count == g->capacity) {
        size_t capacity = g->capacity ? g->capacity * 2 : 1024;
        Move *grown = realloc(g->moves, capacity * sizeof(Move));
        if (!grown) { g->failed = 1; return -1; }
        g->moves = grown;
        g->capacity = capacity;
    }
    g->moves[g->count++] = *m;
    return 0;
}

static void append_label(Move *m, const char *text, int len) {
    memcpy(m->notation + m->notation_len, text, (size_t)len);
    m->notation_len = (uint8_t)(m->notation_len + len);
}

/* The main word spans start..end-1 of the current row; placed[] holds new tiles. */
static void record(Gen *g, int start, int end, int nplaced) {
    int r = g->row;
    if (g->down && nplaced == 1) {
        /* a one-tile play that also forms a horizontal word is listed horizontally */
        for (int c = start; c < end; c++)
            if (!g->board[r][c] && g->cross_score[r][c] >= 0) return;
    }
    Move m;
    int main_sum = 0, word_mult = 1, cross_total = 0;
    m.len = (uint8_t)(end - start);
    for (int c = start; c < end; c++) {
        int tile = g->board[r][c];
        if (tile) {
            main_sum += tile_points(g, tile);
        } else {
            tile = g->placed[c];
            int v = tile_points(g, tile) * g->lm[r][c];
            main_sum += v;
            word_mult *= g->wm[r][c];
            if (g->cross_score[r][c] >= 0) cross_total += (g->cross_score[r][c] + v) * g->wm[r][c];
        }
        m.word[c - start] = (uint8_t)tile;
    }
    int score = main_sum * word_mult + cross_total;
    if (nplaced == g->bingo_tiles) score += g->bingo_bonus;
    m.score = (int16_t)score;
    m.down = (uint8_t)g->down;
    m.row = (uint8_t)(g->down ? start : r);
    m.col = (uint8_t)(g->down ? r : start);
    char coord[8];
    int n = g->down ? snprintf(coord, sizeof coord, "%d%c ", m.col + 1, 'A' + m.row)
                    : snprintf(coord, sizeof coord, "%c%d ", 'A' + m.row, m.col + 1);
    m.notation_len = 0;
    append_label(&m, coord, n);
    for (int i = 0; i < m.len; i++) {
        int t = m.word[i], letter = t & LETTER_MASK;
        if (t & BLANK_BIT) append_label(&m, g->lower[letter], g->lower_len[letter]);
        else append_label(&m, g->upper[letter], g->upper_len[letter]);
    }
    push_move(g, &m);
}

static void extend_right(Gen *g, uint32_t node, int col, int accepts, int start, int nplaced) {
    int r = g->row;
    if (col < N && g->board[r][col]) {
        long e = find_child(g, node, g->board[r][col] & LETTER_MASK);
        if (e < 0) return;
        uint32_t edge = g->edges[e];
        extend_right(g, edge & CHILD_MASK, col + 1, (edge & ACCEPTS) != 0, start, nplaced);
        return;
    }
    if (accepts && nplaced > 0 && col > g->anchor_col && col - start >= 2)
        record(g, start, col, nplaced);
    if (col >= N || node == 0) return;
    uint32_t allowed = g->cross[r][col];
    for (uint32_t i = node;; i++) {
        uint32_t e = g->edges[i];
        int letter = (int)(e >> TILE_SHIFT);
        if (allowed & (1u << letter)) {
            int acc = (e & ACCEPTS) != 0;
            uint32_t child = e & CHILD_MASK;
            if (g->rack[letter]) {
                g->rack[letter]--;
                g->placed[col] = (uint8_t)letter;
                extend_right(g, child, col + 1, acc, start, nplaced + 1);
                g->rack[letter]++;
            }
            if (g->rack[0]) {
                g->rack[0]--;
                g->placed[col] = (uint8_t)(letter | BLANK_BIT);
                extend_right(g, child, col + 1, acc, start, nplaced + 1);
                g->rack[0]++;
            }
        }
        if (e & IS_LAST) break;
    }
}

/* Left parts of length k so far (tiles in left[0..k-1]) on the empty squares
 * before the anchor; each is then extended to the right from the anchor. */
static void left_part(Gen *g, uint32_t node, int k, int limit) {
    int c = g->anchor_col;
    for (int j = 0; j < k; j++) g->placed[c - k + j] = g->left[j];
    extend_right(g, node, c, 0, c - k, k);
    if (k >= limit || node == 0) return;
    for (uint32_t i = node;; i++) {
        uint32_t e = g->edges[i];
        int letter = (int)(e >> TILE_SHIFT);
        uint32_t child = e & CHILD_MASK;
        if (g->rack[letter]) {
            g->rack[letter]--;
            g->left[k] = (uint8_t)letter;
            left_part(g, child, k + 1, limit);
            g->rack[letter]++;
        }
        if (g->rack[0]) {
            g->rack[0]--;
            g->left[k] = (uint8_t)(letter | BLANK_BIT);
            left_part(g, child, k + 1, limit);
            g->rack[0]++;
        }
        if (e & IS_LAST) break;
    }
}

static void generate_pass(Gen *g, int empty_board, int rack_size) {
    compute_cross(g);
    if (empty_board) g->anchor[N / 2][N / 2] = 1;  /* C.6: the first play covers H8 */
    for (int r = 0; r < N; r++) {
        g->row = r;
        for (int c = 0; c < N; c++) {
            if (!g->anchor[r][c]) continue;
            g->anchor_col = c;
            if (c > 0 && g->board[r][c - 1]) {
                int s = c - 1;
                while (s > 0 && g->board[r][s - 1]) s--;
                uint32_t node = root_node(g);
                int ok = 1;
                for (int i = s; i < c; i++) {
                    long e = find_child(g, node, g->board[r][i] & LETTER_MASK);
                    if (e < 0) { ok = 0; break; }
                    node = g->edges[e] & CHILD_MASK;
                }
                if (ok) extend_right(g, node, c, 0, s, 0);
            } else {
                int limit = 0;
                while (limit < c && limit < rack_size - 1 && !g->board[r][c - limit - 1] &&
                       !g->anchor[r][c - limit - 1])
                    limit++;
                left_part(g, root_node(g), 0, limit);
            }
            if (g->failed) return;
        }
    }
}

static int compare_moves(const void *a, const void *b) {
    const Move *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    int n = x->notation_len < y->notation_len ? x->notation_len : y->notation_len;
    int d = memcmp(x->notation, y->notation, (size_t)n);
    if (d) return d;
    return (int)x->notation_len - (int)y->notation_len;
}

static int read_grid(PyObject *obj, uint8_t out[N][N], const char *what) {
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0) return -1;
    if (view.len != N * N) {
        PyErr_Format(PyExc_ValueError, "%s must have %d bytes, got %zd", what, N * N, view.len);
        PyBuffer_Release(&view);
        return -1;
    }
    memcpy(out, view.buf, N * N);
    PyBuffer_Release(&view);
    return 0;
}

static int read_labels(PyObject *seq, char out[][MAX_LABEL], int *lens) {
    if (!PyTuple_Check(seq) || PyTuple_GET_SIZE(seq) != LETTERS + 1) {
        PyErr_SetString(PyExc_ValueError, "labels must be a tuple of 29 bytes");
        return -1;
    }
    for (int i = 0; i <= LETTERS; i++) {
        PyObject *item = PyTuple_GET_ITEM(seq, i);
        char *text;
        Py_ssize_t len;
        if (PyBytes_AsStringAndSize(item, &text, &len) < 0) return -1;
        if (len >= MAX_LABEL) {
            PyErr_SetString(PyExc_ValueError, "label too long");
            return -1;
        }
        memcpy(out[i], text, (size_t)len);
        lens[i] = (int)len;
    }
    return 0;
}

static void transpose(uint8_t grid[N][N]) {
    for (int r = 0; r < N; r++)
        for (int c = r + 1; c < N; c++) {
            uint8_t t = grid[r][c];
            grid[r][c] = grid[c][r];
            grid[c][r] = t;
        }
}

static PyObject *build_result(Gen *g) {
    qsort(g->moves, g->count, sizeof(Move), compare_moves);
    PyObject *list = PyList_New((Py_ssize_t)g->count);
    if (!list) return NULL;
    for (size_t i = 0; i < g->count; i++) {
        Move *m = &g->moves[i];
        PyObject *item = Py_BuildValue("(s#iiiNy#)", m->notation, (Py_ssize_t)m->notation_len,
                                       (int)m->score, (int)m->row, (int)m->col,
                                       PyBool_FromLong(m->down), (const char *)m->word,
                                       (Py_ssize_t)m->len);
        if (!item) { Py_DECREF(list); return NULL; }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

static PyObject *generate(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *edges_obj, *board_obj, *lm_obj, *wm_obj, *upper_obj, *lower_obj;
    Py_buffer rack_view, values_view, edges_view;
    int bingo_tiles, bingo_bonus;
    if (!PyArg_ParseTuple(args, "OOy*OOy*OOii", &edges_obj, &board_obj, &rack_view, &lm_obj,
                          &wm_obj, &values_view, &upper_obj, &lower_obj, &bingo_tiles,
                          &bingo_bonus))
        return NULL;
    Gen *g = calloc(1, sizeof(Gen));
    PyObject *result = NULL;
    uint8_t board[N][N], lm[N][N], wm[N][N];
    int have_edges = 0;
    if (!g) { PyErr_NoMemory(); goto done; }
    if (PyObject_GetBuffer(edges_obj, &edges_view, PyBUF_SIMPLE) < 0) goto done;
    have_edges = 1;
    g->edges = edges_view.buf;
    g->edge_count = edges_view.len / 4;
    if (g->edge_count < 1) { PyErr_SetString(PyExc_ValueError, "empty word graph"); goto done; }
    if (read_grid(board_obj, board, "board") < 0 || read_grid(lm_obj, lm, "letter_mult") < 0 ||
        read_grid(wm_obj, wm, "word_mult") < 0)
        goto done;
    if (values_view.len != LETTERS + 1) {
        PyErr_SetString(PyExc_ValueError, "values must have 29 bytes");
        goto done;
    }
    for (int i = 0; i <= LETTERS; i++) g->values[i] = ((uint8_t *)values_view.buf)[i];
    if (read_labels(upper_obj, g->upper, g->upper_len) < 0 ||
        read_labels(lower_obj, g->lower, g->lower_len) < 0)
        goto done;
    const uint8_t *rack = rack_view.buf;
    for (Py_ssize_t i = 0; i < rack_view.len; i++) {
        if (rack[i] > LETTERS) { PyErr_SetString(PyExc_ValueError, "bad rack tile"); goto done; }
        g->rack[rack[i]]++;
    }
    g->bingo_tiles = bingo_tiles;
    g->bingo_bonus = bingo_bonus;
    int empty_board = 1;
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++)
            if (board[r][c]) empty_board = 0;
    int rack_size = (int)rack_view.len;
    for (int down = 0; down < 2 && !g->failed; down++) {
        memcpy(g->board, board, sizeof board);
        memcpy(g->lm, lm, sizeof lm);
        memcpy(g->wm, wm, sizeof wm);
        if (down) { transpose(g->board); transpose(g->lm); transpose(g->wm); }
        g->down = down;
        generate_pass(g, empty_board, rack_size);
    }
    if (g->failed) { PyErr_NoMemory(); goto done; }
    result = build_result(g);
done:
    if (have_edges) PyBuffer_Release(&edges_view);
    PyBuffer_Release(&rack_view);
    PyBuffer_Release(&values_view);
    if (g) { free(g->moves); free(g); }
    return result;
}

static PyMethodDef methods[] = {
    {"generate", generate, METH_VARARGS, "Every legal placement play; see the module comment."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_movegen", NULL, -1, methods};

PyMODINIT_FUNC PyInit__movegen(void) { return PyModule_Create(&module); }
