"""Union-find with union by rank and path compression: the placer's colocation groups."""


class UnionFind:
    def __init__(self, items):
        self.parent = {x: x for x in items}
        self.rank = dict.fromkeys(items, 0)

    def find(self, x):
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:  # path compression
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a, b):
        """Joins the groups of a and b; returns (new root, absorbed root)."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return ra, None
        if self.rank[ra] < self.rank[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        if self.rank[ra] == self.rank[rb]:
            self.rank[ra] += 1
        return ra, rb
