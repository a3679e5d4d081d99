//! Arrays filled row by row: a two-dimensional array sized by the
//! computation whose rows a loop fills from their starts needs only each
//! row's tail zeroed, right after its entries ([`Lowered::rows_from_start`],
//! [`Lowered::pad_rows`]), instead of a zero fill of the whole array.

use iegen::computation::{BinOp, Role, UpdateOp};

use super::tree::row_start;
use super::walk::{
    assigns_every_iteration, count_writes, find_through_lets, loop_from_zero, reads_in_node,
};
use super::{lin, Action, Code, LNode, Lowered, Ty};

/// How a loop fills a two-dimensional array sized by the computation row
/// by row, each row from its start ([`Lowered::rows_from_start`]).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RowFill {
    /// The variable of the top-level loop: the row.
    pub row: String,
    /// Where the loop over the row's entries is in the top-level loop's
    /// body: child indices, through `let`s.
    pub path: Vec<usize>,
    /// How many elements of the row that loop assigns: its upper bound
    /// minus its lower bound.
    pub filled: Code,
    /// The length of a row (the second extent).
    pub width: Code,
}

impl RowFill {
    /// `(r + 1) * W`: where the row ends, the next one's first element.
    pub(crate) fn row_end(&self) -> Code {
        row_start(lin(vec![(1, Code::Var(self.row.clone()))], 1), &self.width)
    }
}

impl Lowered<'_> {
    /// For a two-dimensional array sized by the computation, with extents
    /// `[R, W]` (lowered), how the top-level node it is allocated before
    /// fills it row by row from each row's start: the node is a loop `for r
    /// in 0..R` whose body holds, through `let`s only, a loop `for k in
    /// lo..hi` every iteration of which assigns (`=`, not under an `if`)
    /// the element `(r, k - lo)`; that is the only write of the array in
    /// the node and nothing there reads it; `lo` and `hi` read only inputs
    /// and call no object, so that they keep their values after the loop.
    /// ELL from compressed rows is filled so. Each row then needs only its
    /// elements from `hi - lo` on zeroed, right after its entries, while
    /// they are in cache ([`Lowered::pad_rows`]), instead of a zero fill of
    /// the whole array before: on a padded ELL the zero fill and the copy
    /// each stream the array through memory when it is out of cache.
    pub(crate) fn rows_from_start(&self, space: usize, extents: &[Code]) -> Option<RowFill> {
        let at = self.alloc_at[space]?;
        let [rows, width] = extents else {
            return None;
        };
        let node = self.body.get(at)?;
        let (row, upper, body) = loop_from_zero(node)?;
        let mut reads = false;
        reads_in_node(node, &mut |s| reads |= s == space);
        if upper != rows || reads || count_writes(std::slice::from_ref(node), space) != 1 {
            return None;
        }
        let start = row_start(Code::Var(row.clone()), width);
        let invariant = |c: &Code| {
            let mut ok = !c.calls_object();
            c.for_each_elem(&mut |s| ok &= self.comp.spaces[s].role == Role::In);
            ok
        };
        let entries = |node: &LNode| {
            let LNode::For {
                var,
                lower,
                upper,
                body,
                ..
            } = node
            else {
                return false;
            };
            // `index - r * W - (k - lo)` folds to zero.
            let at_entry = |index: &Code| {
                let rest = vec![
                    (1, index.clone()),
                    (-1, start.clone()),
                    (-1, Code::Var(var.clone())),
                    (1, lower.clone()),
                ];
                lin(rest, 0) == Code::Int(0)
            };
            invariant(lower) && invariant(upper) && assigns_every_iteration(body, space, &at_entry)
        };
        let (LNode::For { lower, upper, .. }, path) = find_through_lets(body, &entries)? else {
            return None;
        };
        Some(RowFill {
            row: row.clone(),
            path,
            filled: lin(vec![(1, upper.clone()), (-1, lower.clone())], 0),
            width: width.clone(),
        })
    }

    /// The arrays of `arrays` (data spaces sized by the computation, with
    /// their lowered extents) that are filled row by row from each row's
    /// start ([`Lowered::rows_from_start`]), grouped by the loop over a
    /// row's entries that fills them: its top-level node, the fill, the
    /// arrays. Later loops come first, the order [`Lowered::pad_rows`]
    /// needs.
    pub(crate) fn row_fills<'e>(
        &self,
        arrays: impl IntoIterator<Item = (usize, &'e [Code])>,
    ) -> Vec<(usize, RowFill, Vec<usize>)> {
        let mut fills: Vec<(usize, RowFill, Vec<usize>)> = Vec::new();
        for (s, extents) in arrays {
            let (Some(at), Some(fill)) = (self.alloc_at[s], self.rows_from_start(s, extents))
            else {
                continue;
            };
            match fills.iter_mut().find(|(t, f, _)| *t == at && *f == fill) {
                Some((_, _, spaces)) => spaces.push(s),
                None => fills.push((at, fill, vec![s])),
            }
        }
        fills.sort_by(|(a, f, _), (b, g, _)| (b, &g.path).cmp(&(a, &f.path)));
        fills
    }

    /// Puts right after the loop over the entries of `fill` (in top-level
    /// node `at`) a loop that zeroes the rest of the row in every array of
    /// `spaces`: `for z in max(hi - lo, 0)..W: a[r * W + z] = 0`. The
    /// arrays filled so ([`Lowered::rows_from_start`]) need no zero fill
    /// when they are allocated. `false` (nothing changed) when `fill.path`
    /// no longer leads to a loop through `let`s: the insertion shifts the
    /// nodes after it, so several fills of one node go in decreasing order
    /// of their paths.
    pub(crate) fn pad_rows(&mut self, at: usize, fill: &RowFill, spaces: &[usize]) -> bool {
        let var = self.namer.fresh("pad");
        let index = lin(
            vec![
                (1, row_start(Code::Var(fill.row.clone()), &fill.width)),
                (1, Code::Var(var.clone())),
            ],
            0,
        );
        let actions = spaces
            .iter()
            .map(|&s| {
                let ty = Ty::of(self.comp.spaces[s].elem);
                Action::Update {
                    target: Code::Elem {
                        space: s,
                        index: Some(Box::new(index.clone())),
                        ty,
                    },
                    op: UpdateOp::Assign,
                    value: match ty {
                        Ty::Int => Code::Int(0),
                        Ty::Real => Code::Real(0.0),
                    },
                }
            })
            .collect();
        let pad = LNode::For {
            var,
            used: true,
            lower: Code::Bin(
                BinOp::Max,
                Ty::Int,
                Box::new(fill.filled.clone()),
                Box::new(Code::Int(0)),
            ),
            upper: fill.width.clone(),
            body: vec![LNode::Stmt {
                name: "padding".to_string(),
                actions,
            }],
        };
        let Some(LNode::For { body, .. }) = self.body.get_mut(at) else {
            return false;
        };
        let Some((&last, lets)) = fill.path.split_last() else {
            return false;
        };
        let mut nodes = body;
        for &i in lets {
            let Some(LNode::Let { body, .. }) = nodes.get_mut(i) else {
                return false;
            };
            nodes = body;
        }
        if !matches!(nodes.get(last), Some(LNode::For { .. })) {
            return false;
        }
        nodes.insert(last + 1, pad);
        true
    }
}
