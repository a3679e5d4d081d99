//! Descriptor files (`.desc`): lowering and validation.
//!
//! [`parse_descriptor`] parses a file with the grammar of
//! [`iegen::syntax::descriptor_ast`], resolves its names and builds a
//! [`Descriptor`]. Everything that can be decided without a solver is
//! checked here and reported at a line and column: missing and duplicate
//! items, undeclared index arrays, comparators called outside rules, arities
//! (the map's outputs against `dense`, the data relation's against its size,
//! every call against its declaration), names used in the wrong role, rule
//! variables that no call mentions. What needs the solver (the map is a
//! function, injective, ...) is [`check`](crate::check::check)'s job. The
//! file format is documented in `docs/descriptors.md`.

use std::collections::HashMap;

use iegen::constraint::Normalized;
use iegen::lower::lower_formula;
use iegen::syntax::ast::{
    fold_sum, AstConjunction, AstConstraint, AstExpr, AstFormula, AstMonotonicity, CmpOp, Ident,
    RuleArrow, Sign, Span, TupleElem,
};
use iegen::syntax::descriptor_ast::{
    parse_descriptor_file, AstDescItem, AstKeyExpr, AstKeyOp, AstRule, AstSize, AstUfDecl,
};
use iegen::syntax::SyntaxError;
use iegen::{Constraint, Expr, Monotonicity, Set, UfDecl, UfEnvironment, UfRule, Value, Var};

use crate::descriptor::{Comparator, Descriptor, KeyExpr, SourceLines};

/// Parses, lowers and validates a descriptor file.
///
/// # Errors
///
/// A [`SyntaxError`] located at the offending text: a syntax error, a
/// misspelled or unknown item keyword, a missing or duplicate item, a call of
/// a function that is neither a declared index array (`uf`) nor, inside a
/// rule, a comparator, a comparator called outside a rule, an arity that does
/// not match (the map's outputs and `dense`, the data relation's outputs and
/// its size, the data relation's inputs and the map's, a call and its
/// declaration), an index array, comparator or value array used as a plain
/// name, an unknown name in a comparator key, a rule variable that is not
/// passed directly to some call, a non-affine expression.
///
/// ```
/// # use synth::descriptor_file::parse_descriptor;
/// let d = parse_descriptor(
///     "format V { dense [N]; map {[k, i] -> [i] : 0 <= k < NNZ && i = idx(k)};
///      data A : {[k, i] -> [k]} size NNZ;
///      uf idx : {[x] : 0 <= x < NNZ} -> {[y] : 0 <= y < N} increasing; }",
/// )
/// .unwrap();
/// assert_eq!(d.symbols, ["N", "NNZ"]);
/// assert_eq!(d.sparse_arity(), 2);
///
/// let err = parse_descriptor(
///     "format V { dense [N]; map {[k] -> [i] : i = idx(k)}; data A : {[k] -> [k]} size N; }",
/// )
/// .unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "1:45: `idx` is not a declared index array; declare it with `uf idx : DOMAIN -> RANGE;`"
/// );
/// ```
pub fn parse_descriptor(src: &str) -> Result<Descriptor, SyntaxError> {
    iegen::expr::take_overflow();
    let parsed = parse_descriptor_checked(src);
    if iegen::expr::take_overflow() {
        let whole = Span {
            start: 0,
            end: src.len(),
        };
        return Err(SyntaxError::at(
            src,
            whole,
            "integer overflow: a coefficient or constant of the descriptor leaves the 64-bit \
             range",
        ));
    }
    parsed
}

fn parse_descriptor_checked(src: &str) -> Result<Descriptor, SyntaxError> {
    let ast = parse_descriptor_file(src)?;
    let items = Items::collect(src, &ast.items)?;
    let err = |span: Span, msg: String| SyntaxError::at(src, span, msg);

    let Some((dense, _)) = items.dense.clone() else {
        return Err(err(
            ast.name.span,
            format!(
                "format `{}` has no `dense` item; declare its dense extents with `dense [NR, NC];`",
                ast.name.name
            ),
        ));
    };
    let Some((map_ast, _)) = items.map else {
        return Err(err(
            ast.name.span,
            format!(
                "format `{}` has no `map` item; give its sparse-to-dense map with `map {{[..] -> [..] : ..}};`",
                ast.name.name
            ),
        ));
    };
    let Some((data_name, data_ast, size_ast, _)) = items.data else {
        return Err(err(
            ast.name.span,
            format!(
                "format `{}` has no `data` item; give its value array with `data A : {{[..] -> [..]}} size ..;`",
                ast.name.name
            ),
        ));
    };

    let names = Names::new(src, &items, &dense, data_name)?;

    // The index arrays' declarations.
    let mut ufs = Vec::with_capacity(items.ufs.len());
    let mut env = UfEnvironment::new();
    for u in &items.ufs {
        let decl = lower_uf(src, u)?;
        env.declare(decl.clone())
            .map_err(|e| err(u.span, e.to_string()))?;
        ufs.push(decl);
    }

    // Name checks in source order; they also record the symbols in order of
    // first appearance.
    let mut symbols: Vec<String> = dense.iter().map(|d| d.name.clone()).collect();
    for item in &ast.items {
        match item {
            AstDescItem::Map { relation, .. } => {
                names.formula(relation, Where::Map, &mut symbols)?;
            }
            AstDescItem::Data { relation, size, .. } => {
                names.formula(relation, Where::Data, &mut symbols)?;
                for e in size.extents() {
                    names.expr(e, &|_| false, Where::Size, &mut symbols)?;
                }
            }
            AstDescItem::Uf(u) => {
                names.formula(&u.domain, Where::Uf, &mut symbols)?;
                names.formula(&u.range, Where::Uf, &mut symbols)?;
            }
            AstDescItem::Forall(rule) => {
                for v in &rule.vars {
                    names.not_global(v, Where::Rule)?;
                }
                let vars: Vec<&str> = rule.vars.iter().map(|v| v.name.as_str()).collect();
                let bound = |n: &str| vars.contains(&n);
                for c in rule
                    .premise
                    .constraints
                    .iter()
                    .chain(&rule.conclusion.constraints)
                {
                    for e in constraint_exprs(c) {
                        names.expr(e, &bound, Where::Rule, &mut symbols)?;
                    }
                }
            }
            AstDescItem::Dense { .. }
            | AstDescItem::Comparator { .. }
            | AstDescItem::Padding { .. } => {}
        }
    }

    // The map.
    let map = match lower_formula(src, map_ast)? {
        Value::Relation(r) => r,
        Value::Set(_) => {
            return Err(err(
                map_ast.span,
                "the map must be a relation `{[sparse] -> [dense] : ...}`, not a set".to_string(),
            ))
        }
    };
    if map.out_arity() != dense.len() {
        return Err(err(
            map_ast.span,
            format!(
                "the map has {} output{} but `dense` declares {} extent{}",
                map.out_arity(),
                plural(map.out_arity()),
                dense.len(),
                plural(dense.len())
            ),
        ));
    }

    // The value array.
    let data = match lower_formula(src, data_ast).map_err(|e| stride_hint(e, "data relation"))? {
        Value::Relation(r) => r,
        Value::Set(_) => {
            return Err(err(
                data_ast.span,
                format!(
                    "the data relation of `{}` must be a relation `{{[sparse] -> [position]}}`, not a set",
                    data_name.name
                ),
            ))
        }
    };
    if data.in_arity() != map.in_arity() {
        return Err(err(
            data_ast.span,
            format!(
                "the data relation's input tuple has {} position{} but the map's has {}",
                data.in_arity(),
                plural(data.in_arity()),
                map.in_arity()
            ),
        ));
    }
    let extents = size_ast.extents();
    if data.out_arity() != extents.len() {
        return Err(err(
            data_ast.span,
            format!(
                "the data relation has {} output{} but the size of `{}` has {} extent{}",
                data.out_arity(),
                plural(data.out_arity()),
                data_name.name,
                extents.len(),
                plural(extents.len())
            ),
        ));
    }
    let no_vars = HashMap::new();
    let data_size = extents
        .iter()
        .map(|e| lower_expr(src, e, &no_vars).map_err(|e| stride_hint(e, "size")))
        .collect::<Result<Vec<_>, _>>()?;

    // Comparators and rules.
    let comparators = items
        .comparators
        .iter()
        .map(|c| lower_comparator(src, c))
        .collect::<Result<Vec<_>, _>>()?;
    let line = |span: Span| iegen::syntax::line_col(src, span.start).0;
    let mut lines = SourceLines {
        map: Some(line(map_ast.span)),
        data: Some(line(data_ast.span)),
        ufs: items
            .ufs
            .iter()
            .map(|u| (u.name.name.clone(), line(u.span)))
            .collect(),
        rules: Vec::new(),
        comparators: items
            .comparators
            .iter()
            .map(|c| (c.name.name.clone(), line(c.span)))
            .collect(),
    };
    let mut rules = Vec::new();
    for rule in &items.rules {
        for r in lower_rule(src, rule)? {
            env.add_rule(r.clone())
                .map_err(|e| err(rule.span, e.to_string()))?;
            rules.push(r);
            lines.rules.push(line(rule.span));
        }
    }

    Ok(Descriptor {
        name: ast.name.name.clone(),
        dense: dense.iter().map(|d| d.name.clone()).collect(),
        symbols,
        map,
        data_name: data_name.name.clone(),
        data,
        data_size,
        ufs,
        rules,
        comparators,
        padding: items.padding.is_some(),
        lines,
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Adds a hint to a non-affine product error in a value array's layout.
fn stride_hint(mut e: SyntaxError, what: &str) -> SyntaxError {
    if e.message.starts_with("non-affine product") {
        e.message.push_str(&format!(
            "; in the {what}, write a layout with a symbolic stride with several extents, \
             as in `data A : {{[ii, d, jj] -> [ii, d]}} size [NR, ND];`"
        ));
    }
    e
}

/// A comparator item, as written.
struct ComparatorItem<'a> {
    span: Span,
    name: &'a Ident,
    params: &'a [Ident],
    key: &'a [AstKeyExpr],
}

/// The items of a descriptor, sorted by kind, duplicates rejected.
struct Items<'a> {
    dense: Option<(Vec<Ident>, Span)>,
    map: Option<(&'a AstFormula, Span)>,
    data: Option<(&'a Ident, &'a AstFormula, &'a AstSize, Span)>,
    ufs: Vec<&'a AstUfDecl>,
    rules: Vec<&'a AstRule>,
    comparators: Vec<ComparatorItem<'a>>,
    padding: Option<Span>,
}

impl<'a> Items<'a> {
    fn collect(src: &str, items: &'a [AstDescItem]) -> Result<Self, SyntaxError> {
        let mut out = Items {
            dense: None,
            map: None,
            data: None,
            ufs: Vec::new(),
            rules: Vec::new(),
            comparators: Vec::new(),
            padding: None,
        };
        let twice = |what: &str, first: Span, again: Span| {
            let (line, col) = iegen::syntax::line_col(src, first.start);
            SyntaxError::at(
                src,
                again,
                format!("a format has one `{what}` item; the first is at {line}:{col}"),
            )
        };
        for item in items {
            match item {
                AstDescItem::Dense { names, span } => {
                    if let Some((_, first)) = &out.dense {
                        return Err(twice("dense", *first, *span));
                    }
                    for (i, n) in names.iter().enumerate() {
                        if names[..i].iter().any(|m| m.name == n.name) {
                            return Err(SyntaxError::at(
                                src,
                                n.span,
                                format!("dense extent `{}` is listed twice", n.name),
                            ));
                        }
                    }
                    out.dense = Some((names.clone(), *span));
                }
                AstDescItem::Map { relation, span } => {
                    if let Some((_, first)) = &out.map {
                        return Err(twice("map", *first, *span));
                    }
                    out.map = Some((relation, *span));
                }
                AstDescItem::Data {
                    name,
                    relation,
                    size,
                    span,
                } => {
                    if let Some((_, _, _, first)) = &out.data {
                        return Err(twice("data", *first, *span));
                    }
                    out.data = Some((name, relation, size, *span));
                }
                AstDescItem::Uf(u) => out.ufs.push(u),
                AstDescItem::Forall(r) => out.rules.push(r),
                AstDescItem::Comparator {
                    name,
                    params,
                    key,
                    span,
                } => out.comparators.push(ComparatorItem {
                    span: *span,
                    name,
                    params,
                    key,
                }),
                AstDescItem::Padding { span } => {
                    if let Some(first) = out.padding {
                        return Err(twice("padding", first, *span));
                    }
                    out.padding = Some(*span);
                }
            }
        }
        Ok(out)
    }
}

/// Where a name or call stands, for what it may be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Where {
    Map,
    Data,
    Size,
    Uf,
    Rule,
}

impl Where {
    fn describe(self) -> &'static str {
        match self {
            Where::Map => "the map",
            Where::Data => "the data relation",
            Where::Size => "a size",
            Where::Uf => "an index array's domain or range",
            Where::Rule => "a rule",
        }
    }
}

/// What the descriptor's global names are.
struct Names<'s> {
    src: &'s str,
    /// Index arrays: number of arguments (the domain's arity).
    ufs: HashMap<String, usize>,
    /// Comparators: number of parameters.
    comparators: HashMap<String, usize>,
    /// The value array.
    data: String,
}

impl<'s> Names<'s> {
    fn new(
        src: &'s str,
        items: &Items<'_>,
        dense: &[Ident],
        data: &Ident,
    ) -> Result<Self, SyntaxError> {
        let err = |span: Span, msg: String| SyntaxError::at(src, span, msg);
        // Every global name with its kind and place, in source order.
        let mut seen: HashMap<&str, (&'static str, Span)> = HashMap::new();
        let mut global: Vec<(&Ident, &'static str)> = Vec::new();
        global.extend(dense.iter().map(|d| (d, "a dense extent")));
        global.push((data, "the value array"));
        global.extend(items.ufs.iter().map(|u| (&u.name, "an index array")));
        global.extend(items.comparators.iter().map(|c| (c.name, "a comparator")));
        global.sort_by_key(|(id, _)| id.span.start);
        for (id, kind) in global {
            if id.name == "interleave" && kind == "a comparator" {
                return Err(err(
                    id.span,
                    "`interleave` is the builtin of comparator keys; choose another name"
                        .to_string(),
                ));
            }
            if let Some((first_kind, first)) = seen.get(id.name.as_str()) {
                let (line, col) = iegen::syntax::line_col(src, first.start);
                let what = match (*first_kind, kind) {
                    ("an index array", "an index array") => {
                        format!("index array `{}` is declared twice", id.name)
                    }
                    ("a comparator", "a comparator") => {
                        format!("comparator `{}` is declared twice", id.name)
                    }
                    _ => format!("`{}` cannot be {kind}: it is already {first_kind}", id.name),
                };
                return Err(err(id.span, format!("{what} (at {line}:{col})")));
            }
            seen.insert(&id.name, (kind, id.span));
        }
        let mut ufs = HashMap::new();
        for u in &items.ufs {
            // The domain's arity: its first term's tuple.
            let arity = u.domain.terms.first().map_or(0, |t| t.input.len());
            ufs.insert(u.name.name.clone(), arity);
        }
        let comparators = items
            .comparators
            .iter()
            .map(|c| (c.name.name.clone(), c.params.len()))
            .collect();
        Ok(Names {
            src,
            ufs,
            comparators,
            data: data.name.clone(),
        })
    }

    fn err(&self, span: Span, msg: String) -> SyntaxError {
        SyntaxError::at(self.src, span, msg)
    }

    /// Checks the names and calls of a formula literal.
    fn formula(
        &self,
        f: &AstFormula,
        at: Where,
        symbols: &mut Vec<String>,
    ) -> Result<(), SyntaxError> {
        for t in &f.terms {
            let elems: Vec<&TupleElem> = t.input.iter().chain(t.output.iter().flatten()).collect();
            let tuple: Vec<&str> = elems
                .iter()
                .filter_map(|e| match e {
                    TupleElem::Var(id) => Some(id.name.as_str()),
                    TupleElem::Expr(_) => None,
                })
                .collect();
            for e in &elems {
                match e {
                    TupleElem::Var(id) => self.not_global(id, at)?,
                    TupleElem::Expr(e) => {
                        self.expr(e, &|n| tuple.contains(&n), at, symbols)?;
                    }
                }
            }
            for conj in &t.body {
                self.conjunction(conj, &tuple, at, symbols)?;
            }
        }
        Ok(())
    }

    fn conjunction(
        &self,
        conj: &AstConjunction,
        tuple: &[&str],
        at: Where,
        symbols: &mut Vec<String>,
    ) -> Result<(), SyntaxError> {
        for id in &conj.exists {
            self.not_global(id, at)?;
        }
        let bound = |n: &str| tuple.contains(&n) || conj.exists.iter().any(|e| e.name == n);
        for c in &conj.constraints {
            for e in constraint_exprs(c) {
                self.expr(e, &bound, at, symbols)?;
            }
        }
        Ok(())
    }

    /// A variable must not take the name of an index array, comparator or
    /// the value array.
    fn not_global(&self, id: &Ident, at: Where) -> Result<(), SyntaxError> {
        if let Some(kind) = self.kind_of(&id.name) {
            return Err(self.err(
                id.span,
                format!(
                    "`{}` is {kind}; it cannot be a variable in {}",
                    id.name,
                    at.describe()
                ),
            ));
        }
        Ok(())
    }

    fn kind_of(&self, name: &str) -> Option<&'static str> {
        if self.ufs.contains_key(name) {
            Some("an index array")
        } else if self.comparators.contains_key(name) {
            Some("a comparator")
        } else if self.data == name {
            Some("the value array")
        } else {
            None
        }
    }

    /// Checks the names and calls of an expression; `bound` tells the
    /// variables in scope. Free names are symbols, recorded in `symbols`.
    fn expr(
        &self,
        e: &AstExpr,
        bound: &dyn Fn(&str) -> bool,
        at: Where,
        symbols: &mut Vec<String>,
    ) -> Result<(), SyntaxError> {
        match e {
            AstExpr::Num(..) => Ok(()),
            AstExpr::Name(id) => {
                if bound(&id.name) {
                    return Ok(());
                }
                if let Some(kind) = self.kind_of(&id.name) {
                    let hint = if kind == "the value array" {
                        String::new()
                    } else {
                        format!("; call it as `{}(...)`", id.name)
                    };
                    return Err(self.err(
                        id.span,
                        format!("`{}` is {kind}, not a symbol{hint}", id.name),
                    ));
                }
                if !symbols.contains(&id.name) {
                    symbols.push(id.name.clone());
                }
                Ok(())
            }
            // `floor(e / m)` is arithmetic, not a call (lowering checks its form).
            AstExpr::Call(f, args, _) if f.name == "floor" => {
                for a in args {
                    self.expr(a, bound, at, symbols)?;
                }
                Ok(())
            }
            AstExpr::Call(f, args, _) => {
                self.call(f, args.len(), at)?;
                for a in args {
                    self.expr(a, bound, at, symbols)?;
                }
                Ok(())
            }
            AstExpr::Sum(terms, _) => {
                for (_, t) in terms {
                    self.expr(t, bound, at, symbols)?;
                }
                Ok(())
            }
            AstExpr::Mul(a, b, _) | AstExpr::Div(a, b, _) => {
                self.expr(a, bound, at, symbols)?;
                self.expr(b, bound, at, symbols)
            }
            AstExpr::Neg(a, _) => self.expr(a, bound, at, symbols),
        }
    }

    /// Checks one call `f(..)` with `n` arguments.
    fn call(&self, f: &Ident, n: usize, at: Where) -> Result<(), SyntaxError> {
        if at == Where::Size {
            return Err(self.err(
                f.span,
                format!(
                    "a size is an expression over symbols; it cannot call `{}`",
                    f.name
                ),
            ));
        }
        if let Some(&arity) = self.ufs.get(&f.name) {
            if arity != n {
                return Err(self.err(
                    f.span,
                    format!(
                        "index array `{}` takes {arity} argument{} (the arity of its domain), not {n}",
                        f.name,
                        plural(arity)
                    ),
                ));
            }
            return Ok(());
        }
        if let Some(&arity) = self.comparators.get(&f.name) {
            if at != Where::Rule {
                return Err(self.err(
                    f.span,
                    format!(
                        "comparator `{}` may be called only inside `forall` rules, not in {}",
                        f.name,
                        at.describe()
                    ),
                ));
            }
            if arity != n {
                return Err(self.err(
                    f.span,
                    format!(
                        "comparator `{}` takes {arity} argument{}, not {n}",
                        f.name,
                        plural(arity)
                    ),
                ));
            }
            return Ok(());
        }
        if self.data == f.name {
            return Err(self.err(
                f.span,
                format!(
                    "`{}` is the value array; its values cannot appear in {}",
                    f.name,
                    at.describe()
                ),
            ));
        }
        let comparator_hint = if at == Where::Rule {
            format!(" or a comparator with `comparator {}(..) = KEY;`", f.name)
        } else {
            String::new()
        };
        // A misspelling of a declared name is pointed at first.
        let near = self
            .ufs
            .keys()
            .chain(self.comparators.keys())
            .map(|n| (strsim::damerau_levenshtein(n, &f.name), n))
            .filter(|&(d, n)| d <= 2 && d < n.len().min(f.name.len()))
            .min_by_key(|&(d, _)| d)
            .map_or(String::new(), |(_, n)| format!("did you mean `{n}`? else "));
        Err(self.err(
            f.span,
            format!(
                "`{}` is not a declared index array; {near}declare it with `uf {} : DOMAIN -> RANGE;`{comparator_hint}",
                f.name, f.name
            ),
        ))
    }
}

/// The operands of a written constraint.
fn constraint_exprs(c: &AstConstraint) -> &[AstExpr] {
    match c {
        AstConstraint::Chain { exprs, .. } => exprs,
        AstConstraint::True(_) | AstConstraint::False(_) => &[],
    }
}

/// Lowers a `uf` item to a declaration, with located errors.
fn lower_uf(src: &str, u: &AstUfDecl) -> Result<UfDecl, SyntaxError> {
    let set = |f: &AstFormula, which: &str| -> Result<Set, SyntaxError> {
        match lower_formula(src, f)? {
            Value::Set(s) => Ok(s),
            Value::Relation(_) => Err(SyntaxError::at(
                src,
                f.span,
                format!(
                    "the {which} of `{}` must be a set, not a relation",
                    u.name.name
                ),
            )),
        }
    };
    let domain = set(&u.domain, "domain")?;
    let range = set(&u.range, "range")?;
    if range.arity() != 1 {
        return Err(SyntaxError::at(
            src,
            u.range.span,
            format!(
                "the range of `{}` must be a set of 1-tuples, not of {}-tuples",
                u.name.name,
                range.arity()
            ),
        ));
    }
    let mut monotonicity: Vec<Monotonicity> = Vec::new();
    for (p, span) in &u.props {
        if domain.arity() != 1 {
            return Err(SyntaxError::at(
                src,
                *span,
                format!(
                    "`{}` takes {} arguments; monotonicity applies to unary index arrays only",
                    u.name.name,
                    domain.arity()
                ),
            ));
        }
        let m = match p {
            AstMonotonicity::Nondecreasing => Monotonicity::Nondecreasing,
            AstMonotonicity::Increasing => Monotonicity::Increasing,
            AstMonotonicity::Nonincreasing => Monotonicity::Nonincreasing,
            AstMonotonicity::Decreasing => Monotonicity::Decreasing,
        };
        if !monotonicity.contains(&m) {
            monotonicity.push(m);
        }
    }
    Ok(UfDecl {
        name: u.name.name.clone(),
        domain: domain.simplify(),
        range: range.simplify(),
        monotonicity,
    })
}

/// Lowers an expression; `vars` are the variables in scope, other names are
/// symbols.
fn lower_expr(src: &str, e: &AstExpr, vars: &HashMap<&str, Var>) -> Result<Expr, SyntaxError> {
    iegen::lower::lower_expr(src, e, &|name| vars.get(name).copied())
}

/// Lowers one side of a rule to its constraints.
fn lower_side(
    src: &str,
    conj: &AstConjunction,
    vars: &HashMap<&str, Var>,
    span: Span,
) -> Result<Vec<Constraint>, SyntaxError> {
    let mut out = Vec::new();
    for c in &conj.constraints {
        let normalized = match c {
            AstConstraint::True(_) => vec![Normalized::True],
            AstConstraint::False(_) => vec![Normalized::False],
            AstConstraint::Chain { exprs, ops, .. } => {
                let lowered = exprs
                    .iter()
                    .map(|e| lower_expr(src, e, vars))
                    .collect::<Result<Vec<_>, _>>()?;
                ops.iter()
                    .zip(lowered.windows(2))
                    .map(|(op, pair)| {
                        let (a, b) = (&pair[0], &pair[1]);
                        match op {
                            CmpOp::Eq => Constraint::equal(a, b),
                            CmpOp::Lt => Constraint::lt(a, b),
                            CmpOp::Le => Constraint::le(a, b),
                            CmpOp::Gt => Constraint::lt(b, a),
                            CmpOp::Ge => Constraint::le(b, a),
                        }
                    })
                    .collect()
            }
        };
        for n in normalized {
            match n {
                Normalized::True => {}
                Normalized::False => {
                    return Err(SyntaxError::at(src, span, "a rule side is trivially false"))
                }
                Normalized::Constraint(k) => out.push(k),
            }
        }
    }
    Ok(out)
}

/// Lowers a `forall` item to one rule (`=>`) or two (`<=>`).
fn lower_rule(src: &str, rule: &AstRule) -> Result<Vec<UfRule>, SyntaxError> {
    let mut vars: HashMap<&str, Var> = HashMap::new();
    for (i, v) in rule.vars.iter().enumerate() {
        if vars.insert(v.name.as_str(), Var::Tuple(i)).is_some() {
            return Err(SyntaxError::at(
                src,
                v.span,
                format!("`{}` is quantified twice", v.name),
            ));
        }
    }
    let premise = lower_side(src, &rule.premise, &vars, rule.span)?;
    let conclusion = lower_side(src, &rule.conclusion, &vars, rule.span)?;
    // The solver instantiates a rule on the arguments of the calls of a
    // query, matching the variables that are passed directly to a call.
    for (i, v) in rule.vars.iter().enumerate() {
        let var = Var::Tuple(i);
        let mut direct = false;
        let mut nested = false;
        for c in premise.iter().chain(&conclusion) {
            c.expr().for_each_call(&mut |_, args| {
                for a in args {
                    if a.as_var() == Some(var) {
                        direct = true;
                    } else if a.mentions(var) {
                        nested = true;
                    }
                }
            });
        }
        if !direct {
            let msg = if nested {
                format!(
                    "rule variable `{}` is passed to calls only inside larger arguments; \
                     the solver instantiates rules on direct arguments, so pass `{}` itself to some call",
                    v.name, v.name
                )
            } else {
                format!(
                    "rule variable `{}` is not an argument of any call in the rule",
                    v.name
                )
            };
            return Err(SyntaxError::at(src, v.span, msg));
        }
    }
    let names: Vec<String> = rule.vars.iter().map(|v| v.name.clone()).collect();
    let mut out = vec![UfRule {
        vars: names.clone(),
        premise: premise.clone(),
        conclusion: conclusion.clone(),
    }];
    if rule.arrow == RuleArrow::Iff {
        out.push(UfRule {
            vars: names,
            premise: conclusion,
            conclusion: premise,
        });
    }
    Ok(out)
}

/// Lowers a comparator item: parameters become positions.
fn lower_comparator(src: &str, c: &ComparatorItem<'_>) -> Result<Comparator, SyntaxError> {
    for (i, p) in c.params.iter().enumerate() {
        if c.params[..i].iter().any(|q| q.name == p.name) {
            return Err(SyntaxError::at(
                src,
                p.span,
                format!(
                    "parameter `{}` of comparator `{}` is listed twice",
                    p.name, c.name.name
                ),
            ));
        }
    }
    let key = c
        .key
        .iter()
        .map(|k| lower_key(src, c, k))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Comparator {
        name: c.name.name.clone(),
        params: c.params.iter().map(|p| p.name.clone()).collect(),
        key,
    })
}

fn lower_key(src: &str, c: &ComparatorItem<'_>, k: &AstKeyExpr) -> Result<KeyExpr, SyntaxError> {
    let sub = |k: &AstKeyExpr| lower_key(src, c, k).map(Box::new);
    Ok(match k {
        AstKeyExpr::Int(n, _) => KeyExpr::Int(*n),
        AstKeyExpr::Name(id) => match c.params.iter().position(|p| p.name == id.name) {
            Some(i) => KeyExpr::Param(i),
            None => {
                let params: Vec<&str> = c.params.iter().map(|p| p.name.as_str()).collect();
                return Err(SyntaxError::at(
                    src,
                    id.span,
                    format!(
                        "unknown name `{}` in the key of comparator `{}`; its parameters are {}",
                        id.name,
                        c.name.name,
                        params.join(", ")
                    ),
                ));
            }
        },
        AstKeyExpr::Call(f, args, _) => {
            if f.name != "interleave" {
                return Err(SyntaxError::at(
                    src,
                    f.span,
                    format!(
                        "unknown function `{}` in a comparator key; the only builtin is `interleave(..)`",
                        f.name
                    ),
                ));
            }
            KeyExpr::Interleave(
                args.iter()
                    .map(|a| lower_key(src, c, a))
                    .collect::<Result<_, _>>()?,
            )
        }
        AstKeyExpr::Neg(a, _) => KeyExpr::Neg(sub(a)?),
        // The terms in a loop, then one tree of bounded depth.
        AstKeyExpr::Sum(terms, _) => {
            let terms = terms
                .iter()
                .map(|(sign, t)| Ok((*sign, lower_key(src, c, t)?)))
                .collect::<Result<Vec<_>, SyntaxError>>()?;
            fold_sum(
                terms,
                &mut |a| KeyExpr::Neg(Box::new(a)),
                &mut |sign, a, b| match sign {
                    Sign::Plus => KeyExpr::Add(Box::new(a), Box::new(b)),
                    Sign::Minus => KeyExpr::Sub(Box::new(a), Box::new(b)),
                },
            )
            .unwrap_or(KeyExpr::Int(0))
        }
        AstKeyExpr::Binary(op, a, b, _) => {
            let (a, b) = (sub(a)?, sub(b)?);
            match op {
                AstKeyOp::Mul => KeyExpr::Mul(a, b),
                AstKeyOp::Div => KeyExpr::Div(a, b),
                AstKeyOp::Rem => KeyExpr::Rem(a, b),
            }
        }
    })
}
