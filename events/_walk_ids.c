/* The sequencer's filter of remembered event ids (events.audit_sequence): a table of
 * 32-bit fingerprints of the ids' hashes, open addressing, in a bytearray the sequencer
 * owns (slot 0 holds the count; a power of two of slots follows; 0 is an empty slot). It
 * holds the two generations the sequencer remembers (a fingerprint's lowest bit names
 * its generation), so one probe answers for both.
 *
 * A fingerprint not found proves the id new: the common case, decided with one probe into
 * a small table that the garbage collector never walks. A fingerprint found only says the
 * id may be known (a redelivery, or two ids sharing a fingerprint): the sequencer then
 * decides with the ids themselves. So the filter must hold the fingerprint of every id it
 * is asked to remember, and may hold more.
 */
#include "_walk_c.h"

typedef struct {
    uint32_t *slot; /* slot[0] the count, then the table */
    uint64_t mask;
} Prints;

static int
prints_of(PyObject *obj, Prints *p)
{
    if (!PyByteArray_CheckExact(obj))
        return 0;
    Py_ssize_t n = PyByteArray_GET_SIZE(obj) / 4 - 1;
    if (n < 8 || (n & (n - 1)) || PyByteArray_GET_SIZE(obj) % 4)
        return 0;
    p->slot = (uint32_t *)PyByteArray_AS_STRING(obj);
    p->mask = (uint64_t)n - 1;
    return 1;
}

/* an id's fingerprint, its lowest bit its generation's (0 or 1); never 0 (an empty slot).
 * The slot a fingerprint goes to comes from the fingerprint itself, so that aging can
 * move the survivors without their ids. */
static uint32_t
fingerprint(Py_hash_t h, int gen)
{
    uint32_t f = ((uint32_t)((uint64_t)h >> 32) ^ (uint32_t)h) & ~1u;
    return (f ? f : 2) | (uint32_t)gen;
}

/* 1 when ``f`` is there (``any_gen``: in either generation); 0 when not (then *at is the
 * empty slot where it goes) */
static int
find(const Prints *p, uint32_t f, int any_gen, uint64_t *at)
{
    uint32_t ignored = any_gen ? 1u : 0u;
    uint64_t i = (f >> 1) & p->mask;
    while (p->slot[1 + i]) {
        if ((p->slot[1 + i] | ignored) == (f | ignored))
            return 1;
        i = (i + 1) & p->mask;
    }
    *at = i;
    return 0;
}

/* adds ``f`` unless this generation holds it already: 1 added, 0 there */
static int
put(Prints *p, uint32_t f)
{
    uint64_t at;
    if (find(p, f, 0, &at))
        return 0;
    p->slot[1 + at] = f;
    p->slot[0]++;
    return 1;
}

/* the hash of an event id: -1 with an exception, -2 not an exact str */
static Py_hash_t
id_hash(PyObject *id)
{
    if (!PyUnicode_CheckExact(id))
        return -2;
    Py_hash_t h = PyObject_Hash(id);
    return h == -1 ? -1 : h;
}

static int
args_ok(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want, Prints *p, int *gen,
        const char *usage)
{
    if (nargs != want || !prints_of(args[0], p) || !PyLong_CheckExact(args[nargs - 1])) {
        PyErr_SetString(PyExc_TypeError, usage);
        return 0;
    }
    *gen = PyLong_AsLong(args[nargs - 1]) & 1;
    return 1;
}

/* prints_take(prints, ids, gen): True when no id of the list may be known and their
 * fingerprints were all added (to generation ``gen``); False when one may be (some may
 * have been added: the filter may hold more than it must); NotImplemented when an id is
 * not a str or the filter would be more than half full (nothing added) */
PyObject *
prints_take(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Prints p;
    int gen;
    if (!args_ok(args, nargs, 3, &p, &gen, "prints_take(prints, ids, gen)"))
        return NULL;
    PyObject *ids = args[1];
    if (!PyList_CheckExact(ids)) {
        PyErr_SetString(PyExc_TypeError, "prints_take(prints, ids, gen): ids is a list");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(ids);
    if ((uint64_t)p.slot[0] + (uint64_t)n > (p.mask + 1) / 2)
        Py_RETURN_NOTIMPLEMENTED;
    uint64_t at;
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_hash_t h = id_hash(PyList_GET_ITEM(ids, k));
        if (h == -1)
            return NULL;
        if (h == -2)
            Py_RETURN_NOTIMPLEMENTED;
        if (find(&p, fingerprint(h, gen), 1, &at))
            Py_RETURN_FALSE;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        /* (the hash is cached in the str: no second computation) */
        if (!put(&p, fingerprint(PyObject_Hash(PyList_GET_ITEM(ids, k)), gen)))
            Py_RETURN_FALSE; /* twice in the list (or two ids, one fingerprint) */
    }
    Py_RETURN_TRUE;
}

/* prints_add(prints, id, gen): True when added, False when its fingerprint was in this
 * generation already, NotImplemented when ``id`` is not a str or the filter is half full */
PyObject *
prints_add(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Prints p;
    int gen;
    if (!args_ok(args, nargs, 3, &p, &gen, "prints_add(prints, id, gen)"))
        return NULL;
    Py_hash_t h = id_hash(args[1]);
    if (h == -1)
        return NULL;
    if (h == -2 || (uint64_t)p.slot[0] + 1 > (p.mask + 1) / 2)
        Py_RETURN_NOTIMPLEMENTED;
    /* (held by the other generation only, it is added to this one: it must outlive that) */
    return PyBool_FromLong(put(&p, fingerprint(h, gen)));
}

/* prints_has(prints, id): whether ``id`` may be among the remembered ids, of either
 * generation (True for a value that is not a str: the caller then looks at the ids) */
PyObject *
prints_has(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Prints p;
    int gen = 0;
    if (nargs != 2 || !prints_of(args[0], &p)) {
        PyErr_SetString(PyExc_TypeError, "prints_has(prints, id)");
        return NULL;
    }
    Py_hash_t h = id_hash(args[1]);
    if (h == -1)
        return NULL;
    uint64_t at;
    return PyBool_FromLong(h == -2 || find(&p, fingerprint(h, gen), 1, &at));
}

/* prints_age(prints, gen): only generation ``gen``'s fingerprints stay (the older
 * generation's go), moved to where a lookup finds them */
PyObject *
prints_age(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Prints p;
    int gen;
    if (!args_ok(args, nargs, 2, &p, &gen, "prints_age(prints, gen)"))
        return NULL;
    uint64_t n = p.mask + 1, kept = 0;
    uint32_t *keep = PyMem_Malloc(sizeof(uint32_t) * (p.slot[0] ? p.slot[0] : 1));
    if (keep == NULL)
        return PyErr_NoMemory();
    for (uint64_t i = 0; i < n; i++) {
        uint32_t f = p.slot[1 + i];
        if (f && (f & 1u) == (uint32_t)gen && kept < p.slot[0])
            keep[kept++] = f;
        p.slot[1 + i] = 0;
    }
    p.slot[0] = 0;
    for (uint64_t k = 0; k < kept; k++)
        put(&p, keep[k]);
    PyMem_Free(keep);
    Py_RETURN_NONE;
}
