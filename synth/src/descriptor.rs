//! Sparse format descriptors (dissertation 4.1.1): what a format stores and
//! how its stored entries map to dense coordinates.

use codegen::width::IndexKind;
use iegen::{Atom, Expr, Relation, UfDecl, UfEnvironment, UfRule, Var};

/// A key function of a user-defined comparator: `comparator MORTON(i, j) =
/// interleave(i, j);`. Two argument tuples compare by their keys,
/// lexicographically when the key has several components.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparator {
    /// The name used in quantifiers (`MORTON`).
    pub name: String,
    /// Parameter names.
    pub params: Vec<String>,
    /// The key's components, compared lexicographically.
    pub key: Vec<KeyExpr>,
}

/// An integer expression of a comparator key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyExpr {
    /// A literal.
    Int(i64),
    /// The comparator's parameter at this position.
    Param(usize),
    /// `-e`
    Neg(Box<KeyExpr>),
    /// `a + b`
    Add(Box<KeyExpr>, Box<KeyExpr>),
    /// `a - b`
    Sub(Box<KeyExpr>, Box<KeyExpr>),
    /// `a * b`
    Mul(Box<KeyExpr>, Box<KeyExpr>),
    /// `a / b`, rounding toward negative infinity.
    Div(Box<KeyExpr>, Box<KeyExpr>),
    /// `a % b`, with the sign of `b` (so that `a = b * (a / b) + a % b`).
    Rem(Box<KeyExpr>, Box<KeyExpr>),
    /// `interleave(a, b, ...)`: the Morton code of non-negative arguments,
    /// bit 0 of `a` lowest, then bit 0 of `b`, ..., then bit 1 of `a`.
    Interleave(Vec<KeyExpr>),
}

/// A sparse tensor format.
///
/// The sparse-to-dense map relates each point of the sparse iteration space
/// to the dense coordinates of the entry stored there; it must be a
/// function. The data access relation gives the position of that entry's
/// value in the value array. Index arrays are UFs with a domain and a range;
/// universally quantified rules state monotonicity and ordering.
#[derive(Clone, Debug, PartialEq)]
pub struct Descriptor {
    /// The format's name (`CSR`).
    pub name: String,
    /// The dense shape: one extent symbol per dense dimension (`NR`, `NC`).
    pub dense: Vec<String>,
    /// Every symbol the format uses, dense extents first (`NR`, `NC`, `NNZ`).
    pub symbols: Vec<String>,
    /// Sparse iteration space → dense coordinates.
    pub map: Relation,
    /// The name of the value array (`A`).
    pub data_name: String,
    /// Sparse iteration space → position in the value array: one output per
    /// extent of `data_size` (`{[ii, k, jj] -> [k]}`; DIA's
    /// `{[ii, d, jj] -> [ii, d]}`).
    pub data: Relation,
    /// The extents of the value array, row-major: `[NNZ]`, or `[NR, ND]` for
    /// DIA, whose position `(ii, d)` is the linear index `ND * ii + d`. A
    /// product of symbols is not affine, so a layout with a symbolic stride
    /// is written with several extents (as data spaces of the Computation IR
    /// are); the number of values stored is the product of the extents.
    pub data_size: Vec<Expr>,
    /// The index arrays, as UF declarations (domain, range, monotonicity).
    pub ufs: Vec<UfDecl>,
    /// Universally quantified rules: ordering and other array properties.
    pub rules: Vec<UfRule>,
    /// Comparators used only inside rules.
    pub comparators: Vec<Comparator>,
    /// Whether the format stores explicit zeros: value slots that hold no
    /// entry of the tensor (DIA's unoccupied diagonal positions, ELL's
    /// padded slots, BCSR's block fill), whose coordinates may coincide with
    /// other entries' (ELL's), so the map need not be injective. Conversions
    /// from the format skip stored zeros; conversions to it zero-fill.
    pub padding: bool,
    /// Where each item is written in the descriptor's file, for messages
    /// that name a construct (empty for a descriptor built in code).
    pub lines: SourceLines,
}

/// The lines of a descriptor file where its items start (1-based). Two
/// descriptors that differ only in layout are equal: lines say where, not
/// what.
#[derive(Clone, Debug, Default)]
pub struct SourceLines {
    /// The `map` item.
    pub map: Option<usize>,
    /// The `data` item.
    pub data: Option<usize>,
    /// Each `uf` declaration, by the array's name.
    pub ufs: Vec<(String, usize)>,
    /// Each rule of [`Descriptor::rules`], in order (a `<=>` rule's two
    /// directions share a line).
    pub rules: Vec<usize>,
    /// Each comparator, by name.
    pub comparators: Vec<(String, usize)>,
}

impl PartialEq for SourceLines {
    fn eq(&self, _: &SourceLines) -> bool {
        true
    }
}

/// An item of a descriptor that a message can point at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Construct {
    /// The sparse-to-dense map.
    Map,
    /// The data relation.
    Data,
    /// An index array's declaration.
    Uf(String),
    /// The rule at this index of [`Descriptor::rules`].
    Rule(usize),
    /// A comparator.
    Comparator(String),
}

impl Descriptor {
    /// `construct` as a message names it, with its line when the
    /// descriptor came from a file: ``CSR's uf `rowptr`, line 9``.
    pub fn locate(&self, construct: &Construct) -> String {
        let lines = &self.lines;
        let find = |list: &[(String, usize)], name: &str| {
            list.iter().find(|(n, _)| n == name).map(|(_, l)| *l)
        };
        let (what, line) = match construct {
            Construct::Map => ("map".to_string(), lines.map),
            Construct::Data => ("data relation".to_string(), lines.data),
            Construct::Uf(name) => (format!("uf `{name}`"), find(&lines.ufs, name)),
            Construct::Rule(k) => (format!("rule {}", k + 1), lines.rules.get(*k).copied()),
            Construct::Comparator(name) => (
                format!("comparator `{name}`"),
                find(&lines.comparators, name),
            ),
        };
        match line {
            Some(l) => format!("{}'s {what}, line {l}", self.name),
            None => format!("{}'s {what}", self.name),
        }
    }

    /// The comparator `a` calls, with the call's arguments, when `a` is a
    /// call of one of the format's comparators.
    pub fn comparator_call<'a>(&self, a: &'a Atom) -> Option<(&Comparator, &'a [Expr])> {
        match a {
            Atom::Uf(name, args) if self.uf(name).is_none() => {
                self.comparator(name).map(|c| (c, &args[..]))
            }
            _ => None,
        }
    }

    /// Whether `e` calls one of the format's comparators anywhere.
    pub fn mentions_comparator(&self, e: &Expr) -> bool {
        let mut found = false;
        e.for_each_call(&mut |name, _| {
            if self.uf(name).is_none() && self.comparator(name).is_some() {
                found = true;
            }
        });
        found
    }

    /// The UF environment of the format: its index arrays' declarations and
    /// its rules (comparators stay uninterpreted functions to the solver).
    pub fn env(&self) -> UfEnvironment {
        let mut env = UfEnvironment::new();
        for d in &self.ufs {
            // Declarations were validated when the descriptor was built.
            let _ = env.declare(d.clone());
        }
        for r in &self.rules {
            let _ = env.add_rule(r.clone());
        }
        env
    }

    /// What index array `name` holds, which decides its width
    /// ([`IndexKind`]): positions when the map bounds an iteration
    /// variable by it (`rowptr(ii) <= k < rowptr(ii + 1)`: pointers into
    /// the next level), coordinates otherwise (`jj = col(k)`,
    /// `jj = ii + off(d)`: it gives a coordinate's value).
    pub fn index_kind(&self, name: &str) -> IndexKind {
        let mut bounds = false;
        for conj in self.map.conjunctions() {
            for c in conj.constraints().filter(|c| !c.is_eq()) {
                c.expr()
                    .for_each_call(&mut |called, _| bounds |= called == name);
            }
        }
        if bounds {
            IndexKind::Position
        } else {
            IndexKind::Coordinate
        }
    }

    /// The index array (UF) called `name`.
    pub fn uf(&self, name: &str) -> Option<&UfDecl> {
        self.ufs.iter().find(|u| u.name == name)
    }

    /// The comparator called `name`.
    pub fn comparator(&self, name: &str) -> Option<&Comparator> {
        self.comparators.iter().find(|c| c.name == name)
    }

    /// The arity of the sparse iteration space.
    pub fn sparse_arity(&self) -> usize {
        self.map.in_arity()
    }

    /// The number of dense dimensions.
    pub fn dense_arity(&self) -> usize {
        self.map.out_arity()
    }

    /// The data access `{[tuple] -> [index]}` as index expressions over
    /// the sparse tuple (`[k]` for CSR, `[ii, d]` for DIA); `None` when an
    /// index is not a function of the tuple.
    pub(crate) fn data_index(&self) -> Option<Vec<Expr>> {
        let n = self.sparse_arity();
        let [conj] = self.data.conjunctions() else {
            return None;
        };
        (0..self.data.out_arity())
            .map(|o| {
                let v = Var::Tuple(n + o);
                conj.constraints().filter(|c| c.is_eq()).find_map(|c| {
                    let coef = c.expr().coefficient_of_var(v);
                    (coef.abs() == 1).then(|| {
                        let mut rest = c.expr().clone();
                        rest.add_term(Atom::Var(v), -coef);
                        rest.scale(-coef)
                    })
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::builtin::{builtin_names, load_format};

    /// Pointer arrays are positions, the arrays that give a coordinate
    /// coordinates, in every built-in format; and the kinds come from the
    /// map, not the names.
    #[test]
    fn index_kinds_of_the_built_ins() {
        let mut kinds = Vec::new();
        for name in builtin_names() {
            let d = load_format(name).expect("a built-in");
            for u in &d.ufs {
                kinds.push(format!(
                    "{}.{}: {:?}",
                    d.name,
                    u.name,
                    d.index_kind(&u.name)
                ));
            }
        }
        let kinds = kinds.join("\n");
        for want in [
            "CSR.rowptr: Position",
            "CSR.col: Coordinate",
            "DCSR.rowidx: Coordinate",
            "DCSR.rp: Position",
            "CSF3.ptr1: Position",
            "CSF3.idx2: Coordinate",
            "DIA.off: Coordinate",
            "BCSR.browptr: Position",
            "BCSR.bcol: Coordinate",
            "SKYL.sky: Position",
            "ELL.col: Coordinate",
            "COO.row: Coordinate",
        ] {
            assert!(kinds.contains(want), "{want} not in\n{kinds}");
        }
    }
}
