/* What walk() and plan() return for a hand hand_scan() took: the values of
 * replay_fast._Walk, or a plain hand's replay_fast.Plan with its numbers packed. */
#include "_walk_c.h"

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
PyObject *
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
int
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
