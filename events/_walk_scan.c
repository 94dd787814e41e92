/* The one pass over a hand's events, step for step as replay_fast._walk_python: each event
 * checked as the fold would check it, the hand kept in a Hand; 0 (defer to the Python pass)
 * at the first thing the fold could flag or this code does not take. */
#include "_walk_c.h"

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
int
hand_scan(PyObject *events, PyObject *table, Hand *h)
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
