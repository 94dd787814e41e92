/* The one pass over a hand's events (events/replay_fast.py), compiled.
 *
 * walk(events, table) returns the 16 values of replay_fast._Walk as a tuple, and
 * plan(events, table) the values of replay_fast.Plan, for the common, legal course of a
 * hand. For anything else they return NotImplemented: every hand the Python pass gives up
 * on (it returns None there), a voided or disputed hand, and every input this code does
 * not take (a seat number of 64 or more, more than MAX_SLOTS seats, a value of an
 * unexpected type). The caller then runs the Python pass, which decides. So where these
 * return a tuple it must equal what the Python pass returns (tests/audit/test_walk_compiled.py
 * holds them equal on legal and damaged hands); every other answer is the Python pass's.
 *
 * split_tables(items) is the auditor's intake step (events/audit_intake.py): a batch of
 * decoded items split into its rejections and, per table, its events with their ids, hand
 * ids and whether their seq numbers run on without a break; NotImplemented for any item
 * that is neither an event nor a rejection (the Python intake takes those batches).
 *
 * Why C: these passes are the auditor's largest own cost, a dozen attribute reads and
 * dictionary steps per event in the interpreter.
 *
 * The event classes and constants come from configure() (called by replay_fast at import),
 * so this file names no Python module.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

#define MAX_SEAT_NUMBER 64 /* seats 1..63 take the compiled pass */
#define MAX_SLOTS 16       /* seats with a bet in one hand */

static PyObject *T_HandStarted, *T_BetPlaced, *T_PlayerDecision, *T_CardsDealt,
    *T_CommunityRevealed, *T_DealerRevealed, *T_HandEnded, *T_HandVoided,
    *T_DisputeOpened, *T_DisputeResolved, *T_PayoutRecorded;
static PyObject *P_HS, *P_BP, *P_PD, *P_CD, *P_CR, *P_DR, *P_HV, *P_PR; /* payload classes */
static PyObject *STREETS;        /* ("preflop", "flop", "river") */
static PyObject *DEFAULT_MULT;   /* street -> legal multiples */
static PyObject *CARD_INDEX;     /* card -> 0..51 */
static PyObject *SPOT_CODES;     /* payout spot -> its column in the judge (0..3) */
static PyObject *OUTCOME_CODES;  /* outcome -> the settlement's code */
static PyObject *SEAT_NAMES[MAX_SEAT_NUMBER]; /* "seat 1"... (made once) */

/* The events' fields are read at their slots: a msgspec Struct keeps each field in a slot
 * (a member descriptor of its class), found once by configure(). Reading the slot is one
 * load where PyObject_GetAttr looks the name up along the class's MRO on every read. */
enum {
    F_PAYLOAD_HS, F_PAYLOAD_BP, F_PAYLOAD_PD, F_PAYLOAD_CD, F_PAYLOAD_CR, F_PAYLOAD_DR,
    F_PAYLOAD_HV, F_PAYLOAD_PR, F_OCCURRED_AT_HE, F_OCCURRED_AT_HV,
    F_HS_SEATS, F_BP_SEAT, F_BP_SPOT, F_BP_AMOUNT, F_PD_SEAT, F_PD_STREET, F_PD_ACTION,
    F_PD_MULTIPLE, F_PD_AMOUNT, F_CD_TARGET, F_CD_CARDS, F_CD_SEAT, F_CR_STREET, F_CR_CARDS,
    F_DR_CARDS, F_HV_REASON, F_PR_SEAT, F_PR_SPOT, F_PR_OUTCOME, F_PR_AMOUNT, N_FIELDS
};
static Py_ssize_t OFF[N_FIELDS];

/* every event class with the slots of its envelope fields (split_tables) */
#define N_EVENT_TYPES 14
static struct {
    PyObject *type;
    Py_ssize_t table_id, seq, event_id, hand_id;
} ENVELOPE[N_EVENT_TYPES];
static int n_envelope;
static PyObject *T_Rejection;

/* a field's value, borrowed (the object keeps it); NULL when unset */
#define FIELD(obj, f) (*(PyObject **)((char *)(obj) + OFF[f]))

/* interned names and values */
static PyObject *s_seats, *s_limits, *s_ruleset, *s_min_bet, *s_max_bet, *s_max_trips,
    *s_preflop_multiples, *s_flop_multiples, *s_river_multiples;
static PyObject *v_trips, *v_ante, *v_check, *v_fold, *v_seat, *v_community, *v_flop,
    *v_preflop, *v_river, *v_the_board, *v_the_dealer, *v_community_first,
    *v_players_first, *v_ended, *v_voided;

typedef struct {
    long seat;
    int has_bet;
    long long ante, blind, trips;
    int has_dec;
    long long play;
    PyObject *multiple; /* borrowed (its event keeps it) */
    int raised_on;      /* street index, -1 none */
    int folded, ndec;
    PyObject *hole;     /* borrowed list of 2 cards, NULL none */
    int hole_idx[2];
} Slot;

/* a hand as the pass leaves it (borrowed objects are kept alive by the events) */
typedef struct {
    Slot slot[MAX_SLOTS];
    int nslots;
    signed char slot_of[MAX_SEAT_NUMBER];
    int bet_order[MAX_SLOTS], nbet;
    int dec_order[MAX_SLOTS], ndec_order;
    int hole_order[MAX_SLOTS], nhole;
    PyObject *card[52]; /* dealt cards in dealing order */
    int holder[52];     /* slot index, -1 the board, -2 the dealer */
    int ncards;
    unsigned long long dealt; /* card mask */
    PyObject *first, *ruleset;
    PyObject *community, *dealer; /* card lists */
    int community_idx[5], dealer_idx[2];
    PyObject *revealed[5];
    int nrevealed;
    PyObject *dealer_revealed;
    PyObject *order;
    Py_ssize_t early; /* -1: the dealer's cards not revealed */
    PyObject *ended, *ended_at, *void_reason;
    PyObject *pays, *disputes; /* owned lists of events */
} Hand;

static inline int
as_ll(PyObject *v, long long *out) /* 1: read; 0: not an int (defer); -1: error */
{
    if (!PyLong_CheckExact(v))
        return 0;
    int overflow = 0;
    *out = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow)
        return 0;
    if (*out == -1 && PyErr_Occurred())
        return -1;
    return 1;
}

/* ``a == b`` for a constant ``b`` (interned): two interned strings are equal only when
 * they are one object, and the decoder hands back interned literals (a value that is
 * not a str is never equal) */
static inline int
eq(PyObject *a, PyObject *b)
{
    if (a == b)
        return 1;
    if (!PyUnicode_CheckExact(a) || PyUnicode_CHECK_INTERNED(a))
        return 0;
    return PyUnicode_Compare(a, b) == 0;
}

static inline int
street_index(PyObject *s)
{
    return eq(s, v_preflop) ? 0 : eq(s, v_flop) ? 1 : eq(s, v_river) ? 2 : -1;
}

/* the slot of a seat number: >= 0; -1 none yet (when !create); -2 defer */
static inline int
slot_for(Hand *h, long long seat, int create)
{
    if (seat < 1 || seat >= MAX_SEAT_NUMBER)
        return -2;
    int k = h->slot_of[seat];
    if (k >= 0 || !create)
        return k;
    if (h->nslots >= MAX_SLOTS)
        return -2;
    k = h->nslots++;
    Slot *s = &h->slot[k];
    memset(s, 0, sizeof(Slot));
    s->seat = (long)seat;
    s->raised_on = -1;
    h->slot_of[seat] = (signed char)k;
    return k;
}

/* the index of a card (0..51); -1 unknown; -2 error */
static inline int
card_index(PyObject *card)
{
    PyObject *i = PyDict_GetItemWithError(CARD_INDEX, card);
    if (i == NULL)
        return PyErr_Occurred() ? -2 : -1;
    long v = PyLong_AsLong(i);
    return v >= 0 && v < 52 ? (int)v : -1;
}

static inline PyObject *
attr(PyObject *o, PyObject *name) /* borrowed: ``o`` keeps it */
{
    PyObject *v = PyObject_GetAttr(o, name);
    if (v != NULL)
        Py_DECREF(v);
    return v;
}

#define DEFER_IF(cond) do { if (cond) return 0; } while (0)
#define INT(var, obj) do { \
        PyObject *o_ = (obj); \
        if (o_ == NULL) \
            return 0; \
        int r_ = as_ll(o_, &var); \
        if (r_ <= 0) \
            return r_; \
    } while (0)
/* the event's payload, of the class its event type gives it */
#define PAYLOAD(f, cls) do { \
        p = FIELD(ev, f); \
        if (p == NULL || (PyObject *)Py_TYPE(p) != (cls)) \
            return 0; \
    } while (0)

/* deal one list of cards to ``holder``; 1 dealt, 0 defer, -1 error */
static int
deal(Hand *h, PyObject *cards, int holder, int *idx_out)
{
    for (Py_ssize_t c = 0; c < PyList_GET_SIZE(cards); c++) {
        PyObject *card = PyList_GET_ITEM(cards, c);
        int idx = card_index(card);
        if (idx == -2)
            return -1;
        if (idx < 0 || (h->dealt >> idx) & 1 || h->ncards >= 52)
            return 0;
        h->dealt |= 1ULL << idx;
        h->card[h->ncards] = card;
        h->holder[h->ncards++] = holder;
        idx_out[c] = idx;
    }
    return 1;
}

/* The pass (replay_fast._walk_python, step for step). 1: the hand is in ``h``; 0: defer to
 * the Python pass; -1: a Python error is set. ``h->pays`` and ``h->disputes`` are owned
 * and must be released by the caller whatever the answer. */
static int
scan(PyObject *events, PyObject *table, Hand *h)
{
    PyObject *mult[3], *p, *o, *cards;
    long long min_bet, max_bet, max_trips = -1, limit;
    int in_play[MAX_SEAT_NUMBER] = {0};
    long long max_seat = 0;

    h->pays = h->disputes = NULL;
    if (!PyList_CheckExact(events) || table == Py_None || PyList_GET_SIZE(events) == 0)
        return 0;
    PyObject *limits = attr(table, s_limits);
    if (limits == NULL)
        return -1;
    if (limits == Py_None)
        return 0;
    h->ruleset = attr(table, s_ruleset);
    if (h->ruleset == NULL)
        return -1;
    PyObject *first = h->first = PyList_GET_ITEM(events, 0);
    if ((PyObject *)Py_TYPE(first) != T_HandStarted)
        return 0;
    p = FIELD(first, F_PAYLOAD_HS);
    if (p == NULL || (PyObject *)Py_TYPE(p) != P_HS)
        return 0;
    PyObject *seats = FIELD(p, F_HS_SEATS);
    if (seats == NULL || !PyList_CheckExact(seats) || PyList_GET_SIZE(seats) == 0)
        return 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(seats); i++) {
        long long seat;
        INT(seat, PyList_GET_ITEM(seats, i));
        DEFER_IF(seat < 1 || seat >= MAX_SEAT_NUMBER);
        in_play[seat] = 1;
        if (seat > max_seat)
            max_seat = seat;
    }
    if ((o = attr(limits, s_seats)) == NULL)
        return -1;
    if (o != Py_None) {
        INT(limit, o);
        DEFER_IF(max_seat > limit);
    }
    if ((o = attr(limits, s_min_bet)) == NULL)
        return -1;
    INT(min_bet, o);
    if ((o = attr(limits, s_max_bet)) == NULL)
        return -1;
    INT(max_bet, o);
    if ((o = attr(limits, s_max_trips)) == NULL)
        return -1;
    if (o != Py_None)
        INT(max_trips, o);
    if (h->ruleset == Py_None) {
        for (int k = 0; k < 3; k++) {
            mult[k] = PyDict_GetItemWithError(DEFAULT_MULT, PyTuple_GET_ITEM(STREETS, k));
            if (mult[k] == NULL)
                return PyErr_Occurred() ? -1 : 0;
        }
    } else {
        PyObject *names[3] = {s_preflop_multiples, s_flop_multiples, s_river_multiples};
        for (int k = 0; k < 3; k++)
            if ((mult[k] = attr(h->ruleset, names[k])) == NULL)
                return -1;
    }

    memset(h->slot_of, -1, sizeof(h->slot_of));
    h->nslots = h->nbet = h->ndec_order = h->nhole = h->ncards = h->nrevealed = 0;
    h->dealt = 0;
    h->community = h->dealer = h->dealer_revealed = NULL;
    h->order = h->ended = h->ended_at = h->void_reason = Py_None;
    h->early = -1;
    if ((h->pays = PyList_New(0)) == NULL || (h->disputes = PyList_New(0)) == NULL)
        return -1;
    int street_now = 0;
    Py_ssize_t n = PyList_GET_SIZE(events);
    for (Py_ssize_t i = 1; i < n; i++) {
        PyObject *ev = PyList_GET_ITEM(events, i);
        PyObject *kind = (PyObject *)Py_TYPE(ev);
        if (kind == T_PayoutRecorded) {
            if (PyList_Append(h->pays, ev) < 0)
                return -1;
        } else if (kind == T_BetPlaced) {
            long long seat, amount;
            PAYLOAD(F_PAYLOAD_BP, P_BP);
            PyObject *spot = FIELD(p, F_BP_SPOT);
            DEFER_IF(spot == NULL);
            INT(seat, FIELD(p, F_BP_SEAT));
            INT(amount, FIELD(p, F_BP_AMOUNT));
            DEFER_IF(h->ncards || PyList_GET_SIZE(h->pays) || seat < 1
                     || seat >= MAX_SEAT_NUMBER || !in_play[seat]);
            int k = slot_for(h, seat, 1);
            DEFER_IF(k < 0);
            Slot *s = &h->slot[k];
            if (!s->has_bet) {
                s->has_bet = 1;
                h->bet_order[h->nbet++] = k;
            }
            if (eq(spot, v_trips)) {
                DEFER_IF(s->trips || (max_trips >= 0 && amount > max_trips));
                s->trips = amount;
            } else {
                int ante = eq(spot, v_ante);
                long long mine = ante ? s->ante : s->blind;
                long long other = ante ? s->blind : s->ante;
                DEFER_IF(mine || amount < min_bet || amount > max_bet
                         || (other && other != amount));
                if (ante)
                    s->ante = amount;
                else
                    s->blind = amount;
            }
        } else if (kind == T_PlayerDecision) {
            long long seat;
            PAYLOAD(F_PAYLOAD_PD, P_PD);
            PyObject *street_obj = FIELD(p, F_PD_STREET), *action = FIELD(p, F_PD_ACTION);
            DEFER_IF(street_obj == NULL || action == NULL);
            INT(seat, FIELD(p, F_PD_SEAT));
            int street = street_index(street_obj);
            DEFER_IF(street < 0 || street != street_now || PyList_GET_SIZE(h->pays)
                     || h->dealer_revealed != NULL);
            int k = slot_for(h, seat, 0);
            DEFER_IF(k < 0);
            Slot *s = &h->slot[k];
            DEFER_IF(s->hole == NULL || !s->has_bet || !s->ante);
            if (!s->has_dec) {
                s->has_dec = 1;
                h->dec_order[h->ndec_order++] = k;
            }
            DEFER_IF(s->play || s->folded || s->ndec >= 3 || s->ndec != street);
            if (eq(action, v_check)) {
                DEFER_IF(street == 2);
            } else if (eq(action, v_fold)) {
                DEFER_IF(street != 2);
                s->folded = 1;
            } else {
                long long m, amount;
                PyObject *multiple = FIELD(p, F_PD_MULTIPLE);
                INT(m, multiple);
                INT(amount, FIELD(p, F_PD_AMOUNT));
                int in = PySequence_Contains(mult[street], multiple);
                if (in < 0)
                    return -1;
                DEFER_IF(!in || amount != m * s->ante);
                s->play = amount;
                s->multiple = multiple;
                s->raised_on = street;
            }
            s->ndec += 1;
        } else if (kind == T_CardsDealt) {
            int holder, r;
            PAYLOAD(F_PAYLOAD_CD, P_CD);
            PyObject *target = FIELD(p, F_CD_TARGET);
            cards = FIELD(p, F_CD_CARDS);
            DEFER_IF(target == NULL || cards == NULL || !PyList_CheckExact(cards));
            if (eq(target, v_seat)) {
                long long seat;
                INT(seat, FIELD(p, F_CD_SEAT));
                DEFER_IF(seat < 1 || seat >= MAX_SEAT_NUMBER || !in_play[seat]);
                int k = slot_for(h, seat, 0);
                DEFER_IF(k < 0);
                Slot *s = &h->slot[k];
                DEFER_IF(s->hole != NULL || !s->has_bet || !s->ante || s->ante != s->blind
                         || PyList_GET_SIZE(cards) != 2);
                s->hole = cards;
                h->hole_order[h->nhole++] = k;
                holder = k;
                r = deal(h, cards, holder, s->hole_idx);
            } else if (eq(target, v_community)) {
                DEFER_IF(h->community != NULL || PyList_GET_SIZE(cards) != 5);
                h->community = cards;
                holder = -1;
                r = deal(h, cards, holder, h->community_idx);
            } else {
                DEFER_IF(h->dealer != NULL || PyList_GET_SIZE(cards) != 2);
                h->dealer = cards;
                holder = -2;
                r = deal(h, cards, holder, h->dealer_idx);
            }
            if (r <= 0)
                return r;
            if (h->order == Py_None)
                h->order = holder == -1 ? v_community_first : v_players_first;
        } else if (kind == T_CommunityRevealed) {
            PAYLOAD(F_PAYLOAD_CR, P_CR);
            PyObject *street_obj = FIELD(p, F_CR_STREET);
            cards = FIELD(p, F_CR_CARDS);
            DEFER_IF(street_obj == NULL || cards == NULL || !PyList_CheckExact(cards));
            Py_ssize_t m = PyList_GET_SIZE(cards);
            int from;
            if (eq(street_obj, v_flop)) {
                DEFER_IF(h->nrevealed || h->community == NULL || m != 3);
                from = 0;
                street_now = 1;
            } else {
                DEFER_IF(h->nrevealed != 3 || h->community == NULL || m != 2);
                from = 3;
                street_now = 2;
            }
            for (Py_ssize_t c = 0; c < m; c++) {
                PyObject *card = PyList_GET_ITEM(cards, c);
                int r = PyObject_RichCompareBool(card, PyList_GET_ITEM(h->community, from + c),
                                                 Py_EQ);
                if (r <= 0)
                    return r;
                h->revealed[h->nrevealed++] = card;
            }
        } else if (kind == T_DealerRevealed) {
            PAYLOAD(F_PAYLOAD_DR, P_DR);
            cards = FIELD(p, F_DR_CARDS);
            DEFER_IF(cards == NULL || !PyList_CheckExact(cards) || h->dealer_revealed != NULL
                     || h->dealer == NULL);
            int r = PyObject_RichCompareBool(cards, h->dealer, Py_EQ);
            if (r <= 0)
                return r;
            h->dealer_revealed = cards;
            h->early = PyList_GET_SIZE(h->pays);
        } else if (kind == T_HandEnded || kind == T_HandVoided) {
            if (kind == T_HandEnded) {
                h->ended_at = FIELD(ev, F_OCCURRED_AT_HE);
                h->ended = v_ended;
            } else {
                h->ended_at = FIELD(ev, F_OCCURRED_AT_HV);
                PAYLOAD(F_PAYLOAD_HV, P_HV);
                h->void_reason = FIELD(p, F_HV_REASON);
                h->ended = v_voided;
                DEFER_IF(h->void_reason == NULL);
            }
            DEFER_IF(h->ended_at == NULL);
            for (i = i + 1; i < n; i++) { /* after the end, only disputes may follow */
                PyObject *later = PyList_GET_ITEM(events, i);
                PyObject *lk = (PyObject *)Py_TYPE(later);
                DEFER_IF(lk != T_DisputeOpened && lk != T_DisputeResolved);
                if (PyList_Append(h->disputes, later) < 0)
                    return -1;
            }
        } else if (kind == T_DisputeOpened || kind == T_DisputeResolved) {
            if (PyList_Append(h->disputes, ev) < 0)
                return -1;
        } else {
            return 0;
        }
    }
    return 1;
}

static PyObject *
int_list(int n, const long long *values)
{
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (int k = 0; k < n; k++) {
        PyObject *v = PyLong_FromLongLong(values[k]);
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, k, v);
    }
    return out;
}

static PyObject *
tuple_of(PyObject *const *items, int n)
{
    PyObject *out = PyTuple_New(n);
    if (out != NULL)
        for (int k = 0; k < n; k++)
            PyTuple_SET_ITEM(out, k, Py_NewRef(items[k]));
    return out;
}

static PyObject *
list_tuple(PyObject *list) /* tuple(list), () for none */
{
    return list != NULL ? PyList_AsTuple(list) : PyTuple_New(0);
}

static PyObject *
seat_name(long seat)
{
    if (SEAT_NAMES[seat] == NULL)
        SEAT_NAMES[seat] = PyUnicode_FromFormat("seat %ld", seat);
    return SEAT_NAMES[seat];
}

/* a new reference stored in a dict under a new int key; 0 ok, -1 error */
static int
put_seat(PyObject *dict, long seat, PyObject *value)
{
    PyObject *key = PyLong_FromLong(seat);
    int r = key != NULL && value != NULL ? PyDict_SetItem(dict, key, value) : -1;
    Py_XDECREF(key);
    Py_XDECREF(value);
    return r;
}

/* the _Walk values: first, bets, dec, hole, cards, community, dealer, revealed,
 * dealer_revealed, order, pays, early, disputes, ended, ended_at, void_reason */
static PyObject *
walk_values(Hand *h)
{
    PyObject *bets = PyDict_New(), *dec = PyDict_New(), *hole = PyDict_New();
    PyObject *cards = PyDict_New(), *out = NULL;
    PyObject *community = list_tuple(h->community), *dealer = list_tuple(h->dealer);
    PyObject *revealed = tuple_of(h->revealed, h->nrevealed);
    PyObject *dealer_revealed = list_tuple(h->dealer_revealed);
    Py_ssize_t n_pays = PyList_GET_SIZE(h->pays);
    PyObject *early = PyLong_FromSsize_t(h->early < 0 ? n_pays : h->early);
    if (!bets || !dec || !hole || !cards || !community || !dealer || !revealed
        || !dealer_revealed || !early)
        goto done;
    for (int j = 0; j < h->nbet; j++) {
        Slot *s = &h->slot[h->bet_order[j]];
        long long v[3] = {s->ante, s->blind, s->trips};
        if (put_seat(bets, s->seat, int_list(3, v)) < 0)
            goto done;
    }
    for (int j = 0; j < h->ndec_order; j++) {
        Slot *s = &h->slot[h->dec_order[j]];
        PyObject *raised = s->raised_on < 0 ? Py_None : PyTuple_GET_ITEM(STREETS, s->raised_on);
        PyObject *d = Py_BuildValue("[LOOOi]", s->play, s->multiple ? s->multiple : Py_None,
                                    raised, s->folded ? Py_True : Py_False, s->ndec);
        if (put_seat(dec, s->seat, d) < 0)
            goto done;
    }
    for (int j = 0; j < h->nhole; j++) {
        Slot *s = &h->slot[h->hole_order[j]];
        if (put_seat(hole, s->seat, PyList_AsTuple(s->hole)) < 0)
            goto done;
    }
    for (int j = 0; j < h->ncards; j++) {
        int k = h->holder[j];
        PyObject *who = k == -1 ? v_the_board : k == -2 ? v_the_dealer
                                                        : seat_name(h->slot[k].seat);
        if (who == NULL || PyDict_SetItem(cards, h->card[j], who) < 0)
            goto done;
    }
    out = PyTuple_Pack(16, h->first, bets, dec, hole, cards, community, dealer, revealed,
                       dealer_revealed, h->order, h->pays, early, h->disputes, h->ended,
                       h->ended_at, h->void_reason);
done:
    Py_XDECREF(bets);
    Py_XDECREF(dec);
    Py_XDECREF(hole);
    Py_XDECREF(cards);
    Py_XDECREF(community);
    Py_XDECREF(dealer);
    Py_XDECREF(revealed);
    Py_XDECREF(dealer_revealed);
    Py_XDECREF(early);
    return out;
}

/* a code from a dict of constants (SPOT_CODES, OUTCOME_CODES) into *out: 1 found; 0 not
 * there (defer); -1 error */
static inline int
code_of(PyObject *codes, PyObject *name, long long *out)
{
    PyObject *v = PyDict_GetItemWithError(codes, name);
    if (v == NULL)
        return PyErr_Occurred() ? -1 : 0;
    return as_ll(v, out);
}

/* The Plan values of a plain hand that ended (replay_fast._fast_plan_python), its numbers
 * packed (see replay_fast.Plan); 0 (defer: voided, disputed, unfinished, or not plain)
 * with *out NULL; -1 on error. */
static int
plan_values(Hand *h, PyObject **out)
{
    *out = NULL;
    Py_ssize_t n_pays = PyList_GET_SIZE(h->pays);
    if (h->ended != v_ended || PyList_GET_SIZE(h->disputes) || h->ruleset == Py_None
        || h->dealer_revealed == NULL || h->community == NULL || h->dealer == NULL
        || h->early != 0)
        return 0;
    for (int j = 0; j < h->nbet; j++) {
        Slot *s = &h->slot[h->bet_order[j]];
        if (!s->has_dec || !(s->play || s->folded) || s->hole == NULL || s->ante != s->blind)
            return 0;
    }
    PyObject *cards = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(1 + h->nbet) * 7 * 2);
    PyObject *seats = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)h->nbet * 5 * 8);
    PyObject *pays = PyBytes_FromStringAndSize(NULL, n_pays * 4 * 8);
    int r = -1;
    if (!cards || !seats || !pays)
        goto done;
    int16_t *c = (int16_t *)PyBytes_AS_STRING(cards);
    for (int k = 0; k < 2; k++)
        *c++ = (int16_t)h->dealer_idx[k];
    for (int k = 0; k < 5; k++)
        *c++ = (int16_t)h->community_idx[k];
    int64_t *t = (int64_t *)PyBytes_AS_STRING(seats);
    for (int j = 0; j < h->nbet; j++) {
        Slot *s = &h->slot[h->bet_order[j]];
        for (int k = 0; k < 2; k++)
            *c++ = (int16_t)s->hole_idx[k];
        for (int k = 0; k < 5; k++)
            *c++ = (int16_t)h->community_idx[k];
        *t++ = s->seat;
        *t++ = s->ante;
        *t++ = s->play;
        *t++ = s->trips;
        *t++ = s->play ? 0 : 1;
    }
    int64_t *q = (int64_t *)PyBytes_AS_STRING(pays);
    for (Py_ssize_t j = 0; j < n_pays; j++) {
        PyObject *p = FIELD(PyList_GET_ITEM(h->pays, j), F_PAYLOAD_PR);
        long long seat, spot, outcome, amount;
        r = 0;
        if (p == NULL || (PyObject *)Py_TYPE(p) != P_PR || FIELD(p, F_PR_SPOT) == NULL
            || FIELD(p, F_PR_OUTCOME) == NULL)
            goto done;
        if (FIELD(p, F_PR_SEAT) == NULL || (r = as_ll(FIELD(p, F_PR_SEAT), &seat)) <= 0
            || FIELD(p, F_PR_AMOUNT) == NULL
            || (r = as_ll(FIELD(p, F_PR_AMOUNT), &amount)) <= 0)
            goto done;
        if ((r = code_of(SPOT_CODES, FIELD(p, F_PR_SPOT), &spot)) <= 0
            || (r = code_of(OUTCOME_CODES, FIELD(p, F_PR_OUTCOME), &outcome)) <= 0)
            goto done;
        if (spot < 0 || spot > 3) {
            r = 0;
            goto done;
        }
        *q++ = seat;
        *q++ = spot;
        *q++ = outcome;
        *q++ = amount;
    }
    *out = PyTuple_Pack(8, h->ruleset, Py_False, cards, seats, pays, h->first, h->ended_at,
                        h->order);
    r = *out != NULL ? 1 : -1;
done:
    Py_XDECREF(cards);
    Py_XDECREF(seats);
    Py_XDECREF(pays);
    return r;
}

static PyObject *
walk(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "walk(events, table)");
        return NULL;
    }
    Hand h;
    int r = scan(args[0], args[1], &h);
    PyObject *out = r > 0 ? walk_values(&h) : r == 0 ? Py_NewRef(Py_NotImplemented) : NULL;
    Py_XDECREF(h.pays);
    Py_XDECREF(h.disputes);
    return out;
}

static PyObject *
plan(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "plan(events, table)");
        return NULL;
    }
    Hand h;
    PyObject *out = NULL;
    int r = scan(args[0], args[1], &h);
    if (r > 0)
        r = plan_values(&h, &out);
    Py_XDECREF(h.pays);
    Py_XDECREF(h.disputes);
    if (r == 0)
        return Py_NewRef(Py_NotImplemented);
    return r > 0 ? out : NULL;
}

/* split_tables(items) -> (rejections, {table_id: [events, ids, hand_ids, contiguous, _]})
 * or NotImplemented; tables in the order they first appear, each one's events in order;
 * ``contiguous``: each event's seq is the one before it + 1 (the last item is this
 * function's own note of the table's last seq) */
static PyObject *
split_tables(PyObject *self, PyObject *items)
{
    if (!PyList_CheckExact(items) || n_envelope != N_EVENT_TYPES)
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *rejections = PyList_New(0), *groups = PyDict_New();
    PyObject *group = NULL, *group_table = NULL, *out = NULL;
    long long last_seq = 0;
    if (rejections == NULL || groups == NULL)
        goto done;
    int k = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
        PyObject *item = PyList_GET_ITEM(items, i);
        PyObject *type = (PyObject *)Py_TYPE(item);
        if (type == T_Rejection) {
            if (PyList_Append(rejections, item) < 0)
                goto done;
            continue;
        }
        if (ENVELOPE[k].type != type) {
            for (k = 0; k < n_envelope && ENVELOPE[k].type != type; k++)
                ;
            if (k == n_envelope) {
                k = 0;
                out = Py_NewRef(Py_NotImplemented);
                goto done;
            }
        }
        PyObject *table_id = *(PyObject **)((char *)item + ENVELOPE[k].table_id);
        PyObject *seq_obj = *(PyObject **)((char *)item + ENVELOPE[k].seq);
        PyObject *event_id = *(PyObject **)((char *)item + ENVELOPE[k].event_id);
        PyObject *hand_id = *(PyObject **)((char *)item + ENVELOPE[k].hand_id);
        long long seq;
        if (table_id == NULL || seq_obj == NULL || event_id == NULL || hand_id == NULL
            || !PyUnicode_CheckExact(table_id) || as_ll(seq_obj, &seq) <= 0) {
            if (PyErr_Occurred())
                goto done;
            out = Py_NewRef(Py_NotImplemented);
            goto done;
        }
        /* the same table as the item before: its group is at hand (a batch comes in runs) */
        if (group == NULL || (table_id != group_table
                              && PyUnicode_Compare(table_id, group_table) != 0)) {
            if (group != NULL && PyList_SetItem(group, 4, PyLong_FromLongLong(last_seq)) < 0)
                goto done;  /* (the table before keeps its last seq for its next run) */
            group = PyDict_GetItemWithError(groups, table_id);
            if (group == NULL) {
                if (PyErr_Occurred())
                    goto done;
                group = Py_BuildValue("[NNNOO]", PyList_New(0), PyList_New(0),
                                      PyList_New(0), Py_True, Py_None);
                if (group == NULL)
                    goto done;
                int r = PyDict_SetItem(groups, table_id, group);
                Py_DECREF(group);  /* the dict keeps it */
                if (r < 0)
                    goto done;
                last_seq = seq - 1;
            } else {
                PyObject *last = PyList_GET_ITEM(group, 4);
                last_seq = PyLong_AsLongLong(last);
                if (last_seq == -1 && PyErr_Occurred())
                    goto done;
            }
            group_table = table_id;
        }
        if (seq != last_seq + 1 && PyList_GET_ITEM(group, 3) == Py_True
            && PyList_SetItem(group, 3, Py_NewRef(Py_False)) < 0)
            goto done;
        last_seq = seq;
        if (PyList_Append(PyList_GET_ITEM(group, 0), item) < 0
            || PyList_Append(PyList_GET_ITEM(group, 1), event_id) < 0
            || PyList_Append(PyList_GET_ITEM(group, 2), hand_id) < 0)
            goto done;
    }
    out = Py_BuildValue("(OO)", rejections, groups);
done:
    Py_XDECREF(rejections);
    Py_XDECREF(groups);
    return out;
}

static int
take(PyObject *names, const char *key, PyObject **slot)
{
    PyObject *v = PyDict_GetItemString(names, key);
    if (v == NULL) {
        PyErr_Format(PyExc_KeyError, "configure() needs %s", key);
        return -1;
    }
    Py_XSETREF(*slot, Py_NewRef(v));
    return 0;
}

/* the slot offset of field ``name`` of class ``cls`` into OFF[f] */
static int
offset(PyObject *cls, const char *name, int f)
{
    PyObject *d = PyObject_GetAttrString(cls, name);
    if (d == NULL)
        return -1;
    if (Py_TYPE(d) != &PyMemberDescr_Type
        || ((PyMemberDescrObject *)d)->d_member->type != T_OBJECT_EX) {
        PyErr_Format(PyExc_TypeError, "configure(): %R.%s is not a slot", cls, name);
        Py_DECREF(d);
        return -1;
    }
    OFF[f] = ((PyMemberDescrObject *)d)->d_member->offset;
    Py_DECREF(d);
    return 0;
}

static Py_ssize_t
slot_offset(PyObject *cls, const char *name)
{
    Py_ssize_t saved = OFF[0], out;
    if (offset(cls, name, 0) < 0)
        return -1;
    out = OFF[0];
    OFF[0] = saved;
    return out;
}

/* the envelope's slots of every event class (names["EVENTS"]) and the Rejection class */
static PyObject *
configure_envelopes(PyObject *names)
{
    PyObject *events = PyDict_GetItemString(names, "EVENTS");
    if (take(names, "Rejection", &T_Rejection) < 0)
        return NULL;
    if (events == NULL || !PyTuple_Check(events) || PyTuple_GET_SIZE(events) != N_EVENT_TYPES) {
        PyErr_Format(PyExc_TypeError, "configure() needs EVENTS, a tuple of %d classes",
                     N_EVENT_TYPES);
        return NULL;
    }
    n_envelope = 0;
    for (int k = 0; k < N_EVENT_TYPES; k++) {
        PyObject *cls = PyTuple_GET_ITEM(events, k);
        Py_INCREF(cls);
        ENVELOPE[k].type = cls;
        if ((ENVELOPE[k].table_id = slot_offset(cls, "table_id")) < 0
            || (ENVELOPE[k].seq = slot_offset(cls, "seq")) < 0
            || (ENVELOPE[k].event_id = slot_offset(cls, "event_id")) < 0
            || (ENVELOPE[k].hand_id = slot_offset(cls, "hand_id")) < 0)
            return NULL;
    }
    n_envelope = N_EVENT_TYPES;
    Py_RETURN_NONE;
}

static PyObject *
configure(PyObject *self, PyObject *names)
{
    if (!PyDict_Check(names)) {
        PyErr_SetString(PyExc_TypeError, "configure(dict)");
        return NULL;
    }
    if (take(names, "HandStarted", &T_HandStarted) || take(names, "BetPlaced", &T_BetPlaced)
        || take(names, "PlayerDecision", &T_PlayerDecision)
        || take(names, "CardsDealt", &T_CardsDealt)
        || take(names, "CommunityRevealed", &T_CommunityRevealed)
        || take(names, "DealerRevealed", &T_DealerRevealed)
        || take(names, "HandEnded", &T_HandEnded) || take(names, "HandVoided", &T_HandVoided)
        || take(names, "DisputeOpened", &T_DisputeOpened)
        || take(names, "DisputeResolved", &T_DisputeResolved)
        || take(names, "PayoutRecorded", &T_PayoutRecorded)
        || take(names, "HandStartedPayload", &P_HS) || take(names, "BetPlacedPayload", &P_BP)
        || take(names, "PlayerDecisionPayload", &P_PD)
        || take(names, "CardsDealtPayload", &P_CD)
        || take(names, "CommunityRevealedPayload", &P_CR)
        || take(names, "DealerRevealedPayload", &P_DR)
        || take(names, "HandVoidedPayload", &P_HV)
        || take(names, "PayoutRecordedPayload", &P_PR)
        || take(names, "STREETS", &STREETS) || take(names, "DEFAULT_MULTIPLES", &DEFAULT_MULT)
        || take(names, "CARD_INDEX", &CARD_INDEX) || take(names, "SPOT_CODES", &SPOT_CODES)
        || take(names, "OUTCOME_CODES", &OUTCOME_CODES))
        return NULL;
    if (!PyTuple_Check(STREETS) || PyTuple_GET_SIZE(STREETS) != 3
        || !PyDict_Check(DEFAULT_MULT) || !PyDict_Check(CARD_INDEX) || !PyDict_Check(SPOT_CODES)
        || !PyDict_Check(OUTCOME_CODES)) {
        PyErr_SetString(PyExc_TypeError, "configure(): unexpected constants");
        return NULL;
    }
    if (offset(T_HandStarted, "payload", F_PAYLOAD_HS)
        || offset(T_BetPlaced, "payload", F_PAYLOAD_BP)
        || offset(T_PlayerDecision, "payload", F_PAYLOAD_PD)
        || offset(T_CardsDealt, "payload", F_PAYLOAD_CD)
        || offset(T_CommunityRevealed, "payload", F_PAYLOAD_CR)
        || offset(T_DealerRevealed, "payload", F_PAYLOAD_DR)
        || offset(T_HandVoided, "payload", F_PAYLOAD_HV)
        || offset(T_PayoutRecorded, "payload", F_PAYLOAD_PR)
        || offset(T_HandEnded, "occurred_at", F_OCCURRED_AT_HE)
        || offset(T_HandVoided, "occurred_at", F_OCCURRED_AT_HV)
        || offset(P_HS, "seats", F_HS_SEATS) || offset(P_BP, "seat", F_BP_SEAT)
        || offset(P_BP, "spot", F_BP_SPOT) || offset(P_BP, "amount", F_BP_AMOUNT)
        || offset(P_PD, "seat", F_PD_SEAT) || offset(P_PD, "street", F_PD_STREET)
        || offset(P_PD, "action", F_PD_ACTION) || offset(P_PD, "multiple", F_PD_MULTIPLE)
        || offset(P_PD, "amount", F_PD_AMOUNT) || offset(P_CD, "target", F_CD_TARGET)
        || offset(P_CD, "cards", F_CD_CARDS) || offset(P_CD, "seat", F_CD_SEAT)
        || offset(P_CR, "street", F_CR_STREET) || offset(P_CR, "cards", F_CR_CARDS)
        || offset(P_DR, "cards", F_DR_CARDS) || offset(P_HV, "reason", F_HV_REASON)
        || offset(P_PR, "seat", F_PR_SEAT) || offset(P_PR, "spot", F_PR_SPOT)
        || offset(P_PR, "outcome", F_PR_OUTCOME) || offset(P_PR, "amount", F_PR_AMOUNT))
        return NULL;
    return configure_envelopes(names);
}

static PyMethodDef methods[] = {
    {"walk", (PyCFunction)(void (*)(void))walk, METH_FASTCALL,
     "walk(events, table): the pass's values (replay_fast._Walk) or NotImplemented."},
    {"plan", (PyCFunction)(void (*)(void))plan, METH_FASTCALL,
     "plan(events, table): a plain hand's replay_fast.Plan values or NotImplemented."},
    {"split_tables", split_tables, METH_O,
     "split_tables(items): rejections and each table's events, or NotImplemented."},
    {"configure", configure, METH_O, "configure(names): the event classes and constants."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_walk_c", "The one pass over a hand's events, compiled.", -1,
    methods, NULL, NULL, NULL, NULL,
};

#define INTERN(var, text) do { \
        if ((var = PyUnicode_InternFromString(text)) == NULL) \
            return NULL; \
    } while (0)

PyMODINIT_FUNC
PyInit__walk_c(void)
{
    INTERN(s_seats, "seats"); INTERN(s_limits, "limits"); INTERN(s_ruleset, "ruleset");
    INTERN(s_min_bet, "min_bet"); INTERN(s_max_bet, "max_bet");
    INTERN(s_max_trips, "max_trips"); INTERN(s_preflop_multiples, "preflop_multiples");
    INTERN(s_flop_multiples, "flop_multiples"); INTERN(s_river_multiples, "river_multiples");
    INTERN(v_trips, "trips"); INTERN(v_ante, "ante"); INTERN(v_check, "check");
    INTERN(v_fold, "fold"); INTERN(v_seat, "seat"); INTERN(v_community, "community");
    INTERN(v_flop, "flop"); INTERN(v_preflop, "preflop"); INTERN(v_river, "river");
    INTERN(v_the_board, "the board");
    INTERN(v_the_dealer, "the dealer"); INTERN(v_community_first, "community_first");
    INTERN(v_players_first, "players_first"); INTERN(v_ended, "ended");
    INTERN(v_voided, "voided");
    return PyModule_Create(&module);
}
