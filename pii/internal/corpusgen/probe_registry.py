"""The row registry the probe generators share: ids, the split by hash of id, and one seed per shape.

Only the bookkeeping is shared; each probe keeps its own templates and value sources.
"""

import hashlib
import string


class Registry:
    """Collects a probe's rows. name is the probe's name (ids are NAME-family-shape-NNNN, sources
    NAME/shape); rand and fakers are reseeded from seed and the shape's name before each shape, so
    that a change to one shape leaves the rows of the others as they were."""

    def __init__(self, name, seed, per, rand, fakers):
        self.name, self.seed, self.per, self.rand, self.fakers = name, seed, per, rand, fakers
        self.rows = []
        self.count = {}

    def emit(self, family, shape, must_block, types, payload):
        n = self.count.get((family, shape), 0)
        self.count[(family, shape)] = n + 1
        rid = "%s-%s-%s-%04d" % (self.name, family, shape, n)
        split = "dev" if hashlib.sha256(rid.encode()).digest()[0] < 128 else "test"
        row = {"id": rid, "family": family, "source": self.name + "/" + shape, "split": split,
               "must_block": must_block, "types": sorted(set(types)) if must_block else [], "_shape": shape}
        if isinstance(payload, str):
            row["text"] = payload
        else:
            row["json"] = payload
        self.rows.append(row)

    def shape(self, family, name, must_block, types=()):
        """Registers fn as the generator of per rows of (family, name); fn returns a payload, or a
        (payload, types) pair when the types differ from row to row."""
        def deco(fn):
            seed = self.seed + int(hashlib.sha256((family + "/" + name).encode()).hexdigest()[:8], 16)
            self.rand.seed(seed)
            for i, f in enumerate(self.fakers.values()):
                f.seed_instance(seed + i)
            for _ in range(self.per):
                out = fn()
                if isinstance(out, tuple):
                    self.emit(family, name, must_block, out[1], out[0])
                else:
                    self.emit(family, name, must_block, types, out)
            return fn
        return deco

    def write(self, out):
        """Writes the rows as JSON lines."""
        import json
        for r in self.rows:
            r = dict(r)
            del r["_shape"]
            out.write(json.dumps(r, ensure_ascii=False) + "\n")


def seeded_fakers(faker_class, locales, seed):
    """One Faker per locale, the i-th seeded with seed + i. Some providers keep their names in sets,
    whose order changes with the interpreter's hash seed; sorted, the rows are the same on every
    run."""
    fakers = {}
    for i, loc in enumerate(locales):
        f = faker_class(loc)
        f.seed_instance(seed + i)
        fakers[loc] = f
        for prov in f.providers:
            for attr in dir(prov):
                if not attr.startswith("_") and isinstance(getattr(prov, attr, None), (set, frozenset)):
                    setattr(prov, attr, tuple(sorted(getattr(prov, attr))))
    return fakers


def drawing(rand):
    """The small draws every generator makes from rand: pick(xs), chars(n[, alphabet]), digits(n)."""
    def pick(xs):
        return xs[rand.randrange(len(xs))]

    def chars(n, alphabet=string.ascii_letters + string.digits):
        return "".join(rand.choice(alphabet) for _ in range(n))

    def digits(n):
        return chars(n, string.digits)
    return pick, chars, digits
