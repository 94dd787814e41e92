/* Shared by the auditor's compiled passes (events/_walk_c.c, _walk_scan.c,
 * _walk_values.c): the classes, constants and slot offsets configure() sets, the hand the
 * pass fills, and small helpers. Each global is defined once, in _walk_c.c (which defines
 * WALK_EXTERN empty before including this file). */
#ifndef UTH_WALK_C_H
#define UTH_WALK_C_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

#define MAX_SEAT_NUMBER 64 /* seats 1..63 take the compiled pass */
#define MAX_SLOTS 16       /* seats with a bet in one hand */

#ifndef WALK_EXTERN
#define WALK_EXTERN extern
#endif

WALK_EXTERN PyObject *T_HandStarted, *T_BetPlaced, *T_PlayerDecision, *T_CardsDealt,
    *T_CommunityRevealed, *T_DealerRevealed, *T_HandEnded, *T_HandVoided,
    *T_DisputeOpened, *T_DisputeResolved, *T_PayoutRecorded;
WALK_EXTERN PyObject *P_HS, *P_BP, *P_PD, *P_CD, *P_CR, *P_DR, *P_HV, *P_PR; /* payloads */
WALK_EXTERN PyObject *STREETS;        /* ("preflop", "flop", "river") */
WALK_EXTERN PyObject *DEFAULT_MULT;   /* street -> legal multiples */
WALK_EXTERN PyObject *CARD_INDEX;     /* card -> 0..51 */
WALK_EXTERN PyObject *SPOT_CODES;     /* payout spot -> its column in the judge (0..3) */
WALK_EXTERN PyObject *OUTCOME_CODES;  /* outcome -> the settlement's code */
WALK_EXTERN PyObject *SEAT_NAMES[MAX_SEAT_NUMBER]; /* "seat 1"... (made once) */

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
WALK_EXTERN Py_ssize_t OFF[N_FIELDS];

/* a field's value, borrowed (the object keeps it); NULL when unset */
#define FIELD(obj, f) (*(PyObject **)((char *)(obj) + OFF[f]))

/* interned names and values */
WALK_EXTERN PyObject *s_seats, *s_limits, *s_ruleset, *s_min_bet, *s_max_bet, *s_max_trips,
    *s_preflop_multiples, *s_flop_multiples, *s_river_multiples;
WALK_EXTERN PyObject *v_trips, *v_ante, *v_check, *v_fold, *v_seat, *v_community, *v_flop,
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

/* the pass over a hand's events (_walk_scan.c): 1 the hand is in ``h``; 0 defer; -1 error
 * (``h->pays`` and ``h->disputes`` are the caller's to release whatever the answer) */
int hand_scan(PyObject *events, PyObject *table, Hand *h);
/* what walk() and plan() return for a scanned hand (_walk_values.c) */
PyObject *walk_values(Hand *h);
int plan_values(Hand *h, PyObject **out);
/* a plain hand judged as it ends (_walk_judge.c) */
PyObject *configure_evaluation(PyObject *self, PyObject *tables);
PyObject *judge_hand(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
/* the sequencer's filter of remembered event ids (_walk_ids.c) */
PyObject *prints_take(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *prints_add(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *prints_has(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *prints_age(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

#endif
