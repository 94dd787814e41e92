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
 * decoded items (or of (position, item) pairs) split into its rejections and, per table,
 * its events with their ids, positions, hand ids and whether their seq numbers run on
 * without a break; NotImplemented for any item that is neither an event nor a rejection
 * (the Python intake takes those batches).
 *
 * Why C: these passes are the auditor's largest own cost, a dozen attribute reads and
 * dictionary steps per event in the interpreter.
 *
 * The event classes and constants come from configure() (called by replay_fast at import),
 * so this file names no Python module. The pass is in _walk_scan.c, what it returns in
 * _walk_values.c, what they share in _walk_c.h.
 */
#define WALK_EXTERN /* the globals of _walk_c.h are defined here */
#include "_walk_c.h"

/* every event class with the slots of its envelope fields (split_tables) */
#define N_EVENT_TYPES 14
static struct {
    PyObject *type;
    Py_ssize_t table_id, seq, event_id, hand_id;
} ENVELOPE[N_EVENT_TYPES];
static int n_envelope;
static PyObject *T_Rejection;

static PyObject *
walk(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "walk(events, table)");
        return NULL;
    }
    Hand h;
    int r = hand_scan(args[0], args[1], &h);
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
    int r = hand_scan(args[0], args[1], &h);
    if (r > 0)
        r = plan_values(&h, &out);
    Py_XDECREF(h.pays);
    Py_XDECREF(h.disputes);
    if (r == 0)
        return Py_NewRef(Py_NotImplemented);
    return r > 0 ? out : NULL;
}

/* a table's group while split_tables builds it: the five items it returns, then the
 * open run's hand id (Ellipsis: no run yet) and whether the run holds the hand's end */
enum { G_EVENTS, G_IDS, G_RUNS, G_CONTIGUOUS, G_LAST_SEQ, G_POSITIONS, G_RUN_HAND,
       G_RUN_ENDS };

/* the group's open run of one hand ends before event ``end`` */
static int
close_run(PyObject *group, Py_ssize_t end)
{
    PyObject *hand = PyList_GET_ITEM(group, G_RUN_HAND);
    if (hand == Py_Ellipsis)
        return 0;
    PyObject *run = Py_BuildValue("(OnO)", hand, end, PyList_GET_ITEM(group, G_RUN_ENDS));
    if (run == NULL)
        return -1;
    int r = PyList_Append(PyList_GET_ITEM(group, G_RUNS), run);
    Py_DECREF(run);
    return r;
}

/* split_tables(items) ->
 *     (rejections, {table_id: [events, ids, runs, contiguous, _, positions]})
 * or NotImplemented; tables in the order they first appear, each one's events in order;
 * ``runs``: (hand_id, end, ends) of each run of one hand's events, ``end`` the index after
 * it, ``ends`` whether it holds a HandEnded or HandVoided; ``contiguous``: each event's seq
 * is the one before it + 1 (``_`` is this function's own note of the table's last seq);
 * ``positions``: each event's position when the first item is a (position, item) pair
 * (an item that is not a pair then has None), else None */
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
    /* (position, item) pairs, as the first item is one */
    int pairs = PyList_GET_SIZE(items) > 0 && PyTuple_CheckExact(PyList_GET_ITEM(items, 0));
    int k = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
        PyObject *item = PyList_GET_ITEM(items, i), *position = Py_None;
        if (pairs && PyTuple_CheckExact(item)) {
            if (PyTuple_GET_SIZE(item) != 2) {
                out = Py_NewRef(Py_NotImplemented);
                goto done;
            }
            position = PyTuple_GET_ITEM(item, 0);
            item = PyTuple_GET_ITEM(item, 1);
        }
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
            if (group != NULL
                && PyList_SetItem(group, G_LAST_SEQ, PyLong_FromLongLong(last_seq)) < 0)
                goto done;  /* (the table before keeps its last seq for its next run) */
            group = PyDict_GetItemWithError(groups, table_id);
            if (group == NULL) {
                if (PyErr_Occurred())
                    goto done;
                group = Py_BuildValue("[NNNOONOO]", PyList_New(0), PyList_New(0),
                                      PyList_New(0), Py_True, Py_None,
                                      pairs ? PyList_New(0) : Py_NewRef(Py_None),
                                      Py_Ellipsis, Py_False);
                if (group == NULL)
                    goto done;
                int r = PyDict_SetItem(groups, table_id, group);
                Py_DECREF(group);  /* the dict keeps it */
                if (r < 0)
                    goto done;
                last_seq = seq - 1;
            } else {
                PyObject *last = PyList_GET_ITEM(group, G_LAST_SEQ);
                last_seq = PyLong_AsLongLong(last);
                if (last_seq == -1 && PyErr_Occurred())
                    goto done;
            }
            group_table = table_id;
        }
        if (seq != last_seq + 1 && PyList_GET_ITEM(group, G_CONTIGUOUS) == Py_True
            && PyList_SetItem(group, G_CONTIGUOUS, Py_NewRef(Py_False)) < 0)
            goto done;
        last_seq = seq;
        /* the same hand as the table's event before: its run goes on */
        PyObject *run_hand = PyList_GET_ITEM(group, G_RUN_HAND);
        int ends = type == T_HandEnded || type == T_HandVoided;
        if (hand_id == run_hand || (PyUnicode_CheckExact(hand_id)
                                    && PyUnicode_CheckExact(run_hand)
                                    && PyUnicode_Compare(hand_id, run_hand) == 0)) {
            if (ends && PyList_SetItem(group, G_RUN_ENDS, Py_NewRef(Py_True)) < 0)
                goto done;
        } else if (close_run(group, PyList_GET_SIZE(PyList_GET_ITEM(group, G_EVENTS))) < 0
                   || PyList_SetItem(group, G_RUN_HAND, Py_NewRef(hand_id)) < 0
                   || PyList_SetItem(group, G_RUN_ENDS, PyBool_FromLong(ends)) < 0) {
            goto done;
        }
        if (PyList_Append(PyList_GET_ITEM(group, G_EVENTS), item) < 0
            || PyList_Append(PyList_GET_ITEM(group, G_IDS), event_id) < 0
            || (pairs && PyList_Append(PyList_GET_ITEM(group, G_POSITIONS), position) < 0))
            goto done;
    }
    /* each table's last run closed; the lists keep the items returned */
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(groups, &pos, &key, &value)) {
        if (close_run(value, PyList_GET_SIZE(PyList_GET_ITEM(value, G_EVENTS))) < 0
            || PyList_SetSlice(value, G_RUN_HAND, PyList_GET_SIZE(value), NULL) < 0)
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
    {"judge", (PyCFunction)(void (*)(void))judge_hand, METH_FASTCALL,
     "judge(cards, seats, pays, rules): a plain hand's {seat: net} when every payout is "
     "right, else None."},
    {"prints_take", (PyCFunction)(void (*)(void))prints_take, METH_FASTCALL,
     "prints_take(prints, ids, gen): True when every id is new (and added)."},
    {"prints_add", (PyCFunction)(void (*)(void))prints_add, METH_FASTCALL,
     "prints_add(prints, id, gen): True when added, False when it was there."},
    {"prints_has", (PyCFunction)(void (*)(void))prints_has, METH_FASTCALL,
     "prints_has(prints, id): whether the id may be known."},
    {"prints_age", (PyCFunction)(void (*)(void))prints_age, METH_FASTCALL,
     "prints_age(prints, gen): only generation gen's fingerprints stay."},
    {"configure_evaluation", configure_evaluation, METH_O,
     "configure_evaluation(tables): the evaluator's lookup tables, as bytes."},
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
