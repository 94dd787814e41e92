/* One plain hand judged the moment it ends: its seven-card hands evaluated, its wagers
 * settled and each recorded payout compared, as events.audit_batch.judge does for a batch
 * of hands in NumPy (the tests hold the two equal).
 *
 * Judging a hand as it ends lets the auditor drop its events while they are still in the
 * processor's cache; a batch of a thousand hands held until the batch judge outgrows it.
 * judge() answers only "every payout is right" (the nets of the seats); anything else
 * (a mispay, a card it cannot evaluate, a stake too large for machine integers) is None,
 * and the hand goes to the batch judge and the full path as before.
 *
 * The evaluator's lookup tables come from events._eval_tables (configure_evaluation), so
 * this file holds no table of its own: a strength here is the batch evaluator's strength.
 */
#include "_walk_c.h"

#define LO_BITS 17
#define HI_BITS 14
#define SUIT_SHIFT (LO_BITS + HI_BITS)
#define SUIT_BITS 12
#define QUALIFYING_CATEGORY 1 /* the dealer qualifies with a pair */
#define STAKE_LIMIT (1LL << 40) /* stakes above it (never at a table) go the long way */
#define NO_WAGER 2

/* the evaluator's tables (bytes objects kept alive here) and their lengths */
static PyObject *tables_kept;
static const int64_t *card_key;
static const int32_t *lo_row, *hi_col;
static const int16_t *nonflush, *flush;
static const int8_t *flush_suit, *category;
static Py_ssize_t n_lo_row, n_hi_col, n_nonflush, n_flush_suit, n_flush, n_category;

static int
table(PyObject *tables, Py_ssize_t k, Py_ssize_t item, const void **data, Py_ssize_t *n)
{
    PyObject *b = PyTuple_GET_ITEM(tables, k);
    if (!PyBytes_Check(b) || PyBytes_GET_SIZE(b) % item) {
        PyErr_Format(PyExc_TypeError, "configure_evaluation(): table %zd is not bytes of "
                     "%zd-byte items", k, item);
        return -1;
    }
    *data = PyBytes_AS_STRING(b);
    *n = PyBytes_GET_SIZE(b) / item;
    return 0;
}

/* configure_evaluation((card_key, lo_row, hi_col, nonflush, flush_suit, flush, category)):
 * the Tables of events._eval_tables as bytes (int64, int32, int32, int16, int8, int16,
 * int8) */
PyObject *
configure_evaluation(PyObject *self, PyObject *tables)
{
    const void *p[7];
    Py_ssize_t n[7], n_key;
    static const Py_ssize_t item[7] = {8, 4, 4, 2, 1, 2, 1};
    if (!PyTuple_CheckExact(tables) || PyTuple_GET_SIZE(tables) != 7) {
        PyErr_SetString(PyExc_TypeError, "configure_evaluation() needs a tuple of 7 tables");
        return NULL;
    }
    for (Py_ssize_t k = 0; k < 7; k++)
        if (table(tables, k, item[k], &p[k], &n[k]) < 0)
            return NULL;
    n_key = n[0];
    if (n_key != 52) {
        PyErr_SetString(PyExc_ValueError, "configure_evaluation(): 52 card keys expected");
        return NULL;
    }
    Py_XSETREF(tables_kept, Py_NewRef(tables));
    card_key = p[0]; lo_row = p[1]; hi_col = p[2]; nonflush = p[3];
    flush_suit = p[4]; flush = p[5]; category = p[6];
    n_lo_row = n[1]; n_hi_col = n[2]; n_nonflush = n[3]; n_flush_suit = n[4];
    n_flush = n[5]; n_category = n[6];
    Py_RETURN_NONE;
}

/* the strength and category of seven distinct cards 0..51; 0 when they are not that, or a
 * table has no entry (the batch evaluator then decides) */
static int
evaluate7(const int16_t *cards, int *strength, int *cat)
{
    int64_t key = 0;
    uint64_t seen = 0;
    for (int i = 0; i < 7; i++) {
        int c = cards[i];
        if (c < 0 || c > 51 || (seen >> c & 1))
            return 0;
        seen |= 1ULL << c;
        key += card_key[c];
    }
    int64_t lo = key & ((1LL << LO_BITS) - 1);
    int64_t hi = (key >> LO_BITS) & ((1LL << HI_BITS) - 1);
    int64_t suits = (key >> SUIT_SHIFT) & ((1LL << SUIT_BITS) - 1);
    if (lo >= n_lo_row || hi >= n_hi_col || suits >= n_flush_suit)
        return 0;
    int64_t at = (int64_t)lo_row[lo] + hi_col[hi];
    if (lo_row[lo] < 0 || hi_col[hi] < 0 || at >= n_nonflush)
        return 0;
    int s = nonflush[at];
    int suit = flush_suit[suits];
    if (suit >= 0) { /* five or more of one suit: the flush table alone decides */
        int mask = 0;
        for (int i = 0; i < 7; i++)
            if ((cards[i] & 3) == suit)
                mask |= 1 << (cards[i] >> 2);
        if (mask >= n_flush)
            return 0;
        s = flush[mask];
    }
    if (s < 0 || s >= n_category || category[s] < 0 || category[s] > 9)
        return 0;
    *strength = s;
    *cat = category[s];
    return 1;
}

/* the engine's (code, amount) of each spot for one seat (events.settlement.settle_batch);
 * ``rules``: blind numerators, blind denominators and trips odds, ten each by category
 * (numerators and odds 0 below a straight and three of a kind: the blind pushes there and
 * trips lose, as audit_batch packs them) */
static void
settle(const int64_t *rules, int64_t ante, int64_t play, int64_t trips, int folded,
       int ps, int pc, int ds, int dc, int64_t code[4], int64_t amount[4])
{
    int win = !folded && ps > ds, lose = !folded && ps < ds;
    int qualifies = dc >= QUALIFYING_CATEGORY;
    int ante_win = win && qualifies, ante_lose = folded || (lose && qualifies);
    code[0] = ante_win ? 1 : ante_lose ? -1 : 0;
    amount[0] = ante_win ? ante : ante_lose ? -ante : 0;
    int64_t num = rules[pc], den = rules[10 + pc];
    int blind_win = win && num > 0, blind_lose = folded || lose;
    code[1] = blind_win ? 1 : blind_lose ? -1 : 0;
    amount[1] = blind_win ? ante * num / den : blind_lose ? -ante : 0;
    code[2] = play > 0 ? (win ? 1 : lose ? -1 : 0) : NO_WAGER;
    amount[2] = play > 0 && win ? play : play > 0 && lose ? -play : 0;
    int64_t odds = rules[20 + pc];
    code[3] = trips > 0 ? (odds > 0 ? 1 : -1) : NO_WAGER;
    amount[3] = trips > 0 ? (odds > 0 ? trips * odds : -trips) : 0;
}

/* the seats' nets when every payout is right, one per wager and none elsewhere; 0 when
 * not (or not decidable here) */
static int
judged(const int16_t *cards, const int64_t *seats, Py_ssize_t n_seats, const int64_t *pays,
       Py_ssize_t n_pays, const int64_t *rules, int64_t *nets)
{
    int64_t code[MAX_SLOTS][4], amount[MAX_SLOTS][4];
    int ds, dc;
    if (n_seats > MAX_SLOTS)
        return 0;
    for (Py_ssize_t j = 0; j < n_seats; j++)
        for (int k = 0; k < 4; k++) {
            code[j][k] = NO_WAGER;
            amount[j][k] = 0;
        }
    for (Py_ssize_t i = 0; i < n_pays; i++) {
        const int64_t *pay = pays + 4 * i;
        Py_ssize_t j = 0;
        while (j < n_seats && seats[5 * j] != pay[0])
            j++;
        if (j == n_seats || pay[1] < 0 || pay[1] > 3 || code[j][pay[1]] != NO_WAGER)
            return 0; /* a payout of no seat's wager, or a wager paid twice */
        code[j][pay[1]] = pay[2];
        amount[j][pay[1]] = pay[3];
    }
    if (n_seats == 0)
        return 1; /* (a payout would have found no seat above) */
    if (!evaluate7(cards, &ds, &dc))
        return 0;
    for (int c = 0; c < 10; c++)
        if (rules[10 + c] <= 0)
            return 0; /* (a denominator is positive in every ruleset) */
    for (Py_ssize_t j = 0; j < n_seats; j++) {
        const int64_t *s = seats + 5 * j;
        int64_t ante = s[1], play = s[2], trips = s[3], want_code[4], want_amount[4];
        int ps, pc;
        if (ante < 0 || play < 0 || trips < 0 || ante > STAKE_LIMIT || play > STAKE_LIMIT
                || trips > STAKE_LIMIT || (s[4] && play) || (s[4] != 0 && s[4] != 1))
            return 0;
        if (!evaluate7(cards + 7 * (j + 1), &ps, &pc))
            return 0;
        settle(rules, ante, play, trips, (int)s[4], ps, pc, ds, dc, want_code, want_amount);
        nets[j] = 0;
        for (int k = 0; k < 4; k++) {
            if (code[j][k] != want_code[k] || amount[j][k] != want_amount[k])
                return 0;
            nets[j] += amount[j][k];
        }
    }
    return 1;
}

/* judge(cards, seats, pays, rules) -> {seat: net} or None: a replay_fast.Plan's packed
 * numbers and its ruleset's pay tables (int64: blind numerators, blind denominators,
 * trips odds, ten each by category) */
PyObject *
judge_hand(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "judge(cards, seats, pays, rules)");
        return NULL;
    }
    for (int k = 0; k < 4; k++)
        if (!PyBytes_CheckExact(args[k])) {
            PyErr_SetString(PyExc_TypeError, "judge() takes four bytes objects");
            return NULL;
        }
    if (card_key == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "judge() before configure_evaluation()");
        return NULL;
    }
    Py_ssize_t n_cards = PyBytes_GET_SIZE(args[0]), n_seat_bytes = PyBytes_GET_SIZE(args[1]);
    Py_ssize_t n_pay_bytes = PyBytes_GET_SIZE(args[2]);
    if (n_seat_bytes % 40 || n_pay_bytes % 32 || PyBytes_GET_SIZE(args[3]) != 30 * 8)
        Py_RETURN_NONE;
    Py_ssize_t n_seats = n_seat_bytes / 40;
    if (n_seats && n_cards != 14 * (n_seats + 1))
        Py_RETURN_NONE;
    int64_t nets[MAX_SLOTS];
    const int64_t *seats = (const int64_t *)PyBytes_AS_STRING(args[1]);
    if (!judged((const int16_t *)PyBytes_AS_STRING(args[0]), seats, n_seats,
                (const int64_t *)PyBytes_AS_STRING(args[2]), n_pay_bytes / 32,
                (const int64_t *)PyBytes_AS_STRING(args[3]), nets))
        Py_RETURN_NONE;
    PyObject *out = PyDict_New();
    for (Py_ssize_t j = 0; out != NULL && j < n_seats; j++) {
        PyObject *seat = PyLong_FromLongLong(seats[5 * j]);
        PyObject *net = PyLong_FromLongLong(nets[j]);
        if (seat == NULL || net == NULL || PyDict_SetItem(out, seat, net) < 0)
            Py_CLEAR(out);
        Py_XDECREF(seat);
        Py_XDECREF(net);
    }
    return out;
}
