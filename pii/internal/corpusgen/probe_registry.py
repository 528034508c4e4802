"""The row registry the probe generators share: ids, the split by hash of id, and one seed per shape.

Only the bookkeeping is shared; each probe keeps its own templates and value sources.
"""

import hashlib


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
