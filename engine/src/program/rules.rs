//! `drv_check_rules`: what `spf convert` checks of a source instance beyond
//! its names, ranges and monotonicity (`drv_check_source`), printed as C for
//! the programs `spf build` writes: every rule of the source descriptor, and
//! the storage check (every nonzero value addressed by a stored entry, no
//! two nonzero entries at one coordinate).
//!
//! The plan is the validator's own ([`synth::rule_plan`]): each
//! constraint of a rule's conclusion is checked on adjacent pairs, by a join
//! on keys, or by full enumeration within [`RULE_BUDGET`] evaluations, so a
//! program accepts exactly the instances `spf convert` accepts. The points a
//! check enumerates are scanned into loops by codegen's polyhedra scanner
//! under an environment that knows the index arrays' names only: a check
//! must not assume the facts it checks. Index arithmetic is in 64 bits,
//! every operation checked, as spf's own evaluator does it (comparator keys,
//! whose interleavings need up to 127 bits, in 128), and index-array reads
//! are bounds-checked.
//!
//! A check that cannot be printed (an existential variable in a rule's
//! enumeration, a UF of several arguments whose extents are not affine in
//! the symbols, a key of several components in arithmetic, a tensor of more
//! than three dimensions) makes the program refuse JSON input with the
//! reason, unless it runs with `--unchecked`; Matrix Market and FROSTT input
//! is built valid by the program itself and is not affected.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use codegen::ast::{GuardOp, IndexExpr, Node};
use codegen::scan::scan;
use iegen::computation::{Body, Computation, Stmt};
use iegen::constraint::Normalized;
use iegen::{
    Atom, Conjunction, Constraint, ConstraintKind, Expr, Formula, Relation, Set, UfDecl,
    UfEnvironment, UfRule, Var,
};
use synth::concrete::domain_guards;
use synth::concrete::rule_text;
use synth::descriptor::{Comparator, KeyExpr};
use synth::instance_validation::RULE_BUDGET;
use synth::representable::Representable;
use synth::rule_plan::{rule_checks, Check, Join, RuleCheck};
use synth::Descriptor;

use super::c_text::{c_str, c_str_list};

/// The C of `drv_check_rules(drv_inst *x, const char *ctx)` for `d`, and
/// of `drv_check_representable(x, ctx)`, which stops at a nonzero entry the
/// destination cannot store (`storable`; run on every input, checked or
/// not, since the conversion would write outside its arrays), with the
/// helpers they call. When some check cannot be printed, the function
/// refuses every instance with the reason (see the module documentation).
pub(crate) fn rules_check(d: &Descriptor, storable: &Representable) -> String {
    match rules_check_exact(d, storable) {
        Ok(code) => code,
        Err(reason) => format!(
            "static void drv_check_rules(drv_inst *x, const char *ctx)\n{{\n    (void)x;\n    \
             drv_die(\"%s: this program cannot check a JSON instance of %s in C (%s); \
             `spf convert` checks it, or run the program with --unchecked to convert it \
             unchecked\", ctx, {}, {});\n}}\n{}",
            c_str(&d.name),
            c_str(&reason),
            unchecked_representable("drv", d, storable, &reason)
        ),
    }
}

/// The C of `{prefix}_check_representable(drv_inst *x, const char *ctx)`
/// alone, every name it defines prefixed `prefix`: the check that every
/// entry of an instance of `d` can be stored in `storable`'s format, which
/// a program runs on what it converts before the conversion runs (the
/// coordinates it read, before it converts them to its source format).
/// When the check cannot be printed, the function refuses every instance
/// that has an entry to check, with the reason.
pub(crate) fn representable_check(
    d: &Descriptor,
    storable: &Representable,
    prefix: &str,
) -> String {
    if storable.is_everything() {
        return unchecked_representable(prefix, d, storable, "");
    }
    let mut emitter = Emitter::new(d);
    emitter.prefix = prefix.to_string();
    let code = emitter.declarations().and_then(|(head, names)| {
        let function = emitter.representable_function(storable, &names)?;
        Ok(format!("{head}{}{function}", emitter.helpers))
    });
    code.unwrap_or_else(|reason| unchecked_representable(prefix, d, storable, &reason))
}

/// The stand-in for a representability check that cannot be printed: it
/// refuses every instance, unless every entry is storable.
fn unchecked_representable(
    prefix: &str,
    d: &Descriptor,
    storable: &Representable,
    reason: &str,
) -> String {
    if storable.is_everything() {
        return format!(
            "static void {prefix}_check_representable(drv_inst *x, const char *ctx)\n{{\n    \
             (void)x;\n    (void)ctx;\n}}\n"
        );
    }
    format!(
        "static void {prefix}_check_representable(drv_inst *x, const char *ctx)\n{{\n    \
         (void)x;\n    drv_die(\"%s: this program cannot check in C that every entry \
         of %s can be stored in %s (%s), so it converts nothing; `spf convert` \
         checks it\", ctx, {}, {}, {});\n}}\n",
        c_str(&d.name),
        c_str(&storable.format),
        c_str(reason)
    )
}

/// [`rules_check`]'s C, or why some check cannot be printed (the library
/// of a format's compiled check, [`crate::native_check`], has no
/// refusing stand-in: its caller checks in Rust instead).
pub(crate) fn rules_check_exact(
    d: &Descriptor,
    storable: &Representable,
) -> Result<String, Unsupported> {
    Emitter::new(d).emit(storable)
}

/// Why a check cannot be printed.
pub(super) type Unsupported = String;

struct Emitter<'d> {
    d: &'d Descriptor,
    /// The scanner's environment: the index arrays, with no facts.
    scan_env: UfEnvironment,
    /// Symbol name → its slot in `drv_rs`.
    syms: BTreeMap<String, usize>,
    /// Index array name → its number (`drv_ru[k]`, `drv_uf{k}`).
    ufs: BTreeMap<String, usize>,
    /// Static helper functions, in order.
    helpers: String,
    /// The body of `drv_check_rules`.
    body: String,
    /// A counter for fresh names.
    fresh: usize,
    /// The prefix of every name the check defines (`drv`: `drv_rs`,
    /// `drv_uf0`, …), so that two checks can live in one program.
    prefix: String,
}

impl<'d> Emitter<'d> {
    fn new(d: &'d Descriptor) -> Emitter<'d> {
        let mut scan_env = UfEnvironment::new();
        for u in &d.ufs {
            let _ = scan_env.declare(UfDecl {
                name: u.name.clone(),
                domain: Set::universe(u.domain.arity()),
                range: Set::universe(1),
                monotonicity: Vec::new(),
            });
        }
        Emitter {
            d,
            scan_env,
            syms: d
                .symbols
                .iter()
                .enumerate()
                .map(|(k, s)| (s.clone(), k))
                .collect(),
            ufs: d
                .ufs
                .iter()
                .enumerate()
                .map(|(k, u)| (u.name.clone(), k))
                .collect(),
            helpers: String::new(),
            body: String::new(),
            fresh: 0,
            prefix: "drv".to_string(),
        }
    }

    fn next(&mut self) -> usize {
        self.fresh += 1;
        self.fresh
    }

    /// A fresh name for a helper of the given kind (`drv_holds3`).
    fn fresh_name(&mut self, kind: &str) -> String {
        let n = self.next();
        format!("{}_{kind}{n}", self.prefix)
    }

    fn emit(mut self, storable: &Representable) -> Result<String, Unsupported> {
        let d = self.d;
        let (head, names) = self.declarations()?;
        let mut setup = names.clone();
        for u in &d.ufs {
            setup.push_str(&self.length_check(u)?);
        }
        for rule in &d.rules {
            for how in rule_checks(d, rule) {
                match how {
                    RuleCheck::Points(checks) => {
                        for check in &checks {
                            self.points_check(rule, check)?;
                        }
                    }
                    RuleCheck::Join(join) => self.join_check(rule, &join)?,
                }
            }
        }
        self.storage_check()?;
        let representable = self.representable_function(storable, &names)?;
        let p = &self.prefix;
        Ok(format!(
            "{head}{}\nstatic void {p}_check_rules(drv_inst *x, const char *ctx)\n{{\n{setup}{}}}\n\
             {representable}",
            self.helpers, self.body
        ))
    }

    /// The check's index-array readers and comparator keys, and the
    /// statements that bind its symbols and arrays to the instance `x`.
    fn declarations(&mut self) -> Result<(String, String), Unsupported> {
        let d = self.d;
        let p = self.prefix.clone();
        let mut head = String::new();
        let _ = writeln!(
            head,
            "static int64_t {p}_rs[{}];\nstatic const drv_array *{p}_ru[{}];",
            d.symbols.len().max(1),
            d.ufs.len().max(1)
        );
        for (k, u) in d.ufs.iter().enumerate() {
            self.uf_reader(&mut head, k, u)?;
        }
        for (k, c) in d.comparators.iter().enumerate() {
            self.key_function(&mut head, k, c)?;
        }
        let mut names = String::new();
        for (s, k) in &self.syms {
            let _ = writeln!(names, "    {p}_rs[{k}] = drv_symbol(x, ctx, {});", c_str(s));
        }
        for (u, k) in &self.ufs {
            let _ = writeln!(
                names,
                "    {p}_ru[{k}] = drv_array_named(x, ctx, {});",
                c_str(u)
            );
        }
        Ok((head, names))
    }

    /// `{prefix}_check_representable(x, ctx)` (`names` binds the
    /// instance's symbols and arrays); the helpers it calls are added to
    /// `self.helpers`.
    fn representable_function(
        &mut self,
        storable: &Representable,
        names: &str,
    ) -> Result<String, Unsupported> {
        let body = self.representable_check(storable)?;
        let body = if body.is_empty() {
            "    (void)x;\n    (void)ctx;\n".to_string()
        } else {
            format!("{names}{body}")
        };
        Ok(format!(
            "static void {}_check_representable(drv_inst *x, const char *ctx)\n{{\n{body}}}\n",
            self.prefix
        ))
    }

    /// `drv_uf{k}(ctx, rule, a0, ...)`: a bounds-checked read of index array
    /// `k`, row-major over its extents (the length for one argument; the
    /// domain's affine upper bounds for several).
    fn uf_reader(&mut self, out: &mut String, k: usize, u: &UfDecl) -> Result<(), Unsupported> {
        let p = self.prefix.clone();
        let n = u.domain.arity();
        let params: String = (0..n).map(|i| format!(", drv_ix a{i}")).collect();
        let _ = writeln!(
            out,
            "static DRV_UNUSED drv_ix {p}_uf{k}(const char *ctx, const char *rule{params})\n{{\n    \
             const drv_array *a = {p}_ru[{k}];\n    drv_ix at = 0;"
        );
        if n == 1 {
            out.push_str("    at = a0;\n");
        } else {
            let [conj] = u.domain.conjunctions() else {
                return Err(format!("the domain of {} is not one conjunction", u.name));
            };
            for i in 0..n {
                let upper = conj
                    .constraints()
                    .filter(|c| !c.is_eq() && c.expr().coefficient_of_var(Var::Tuple(i)) == -1)
                    .find_map(|c| {
                        let rest = c.expr().plus(&Expr::var(Var::Tuple(i)));
                        let mut symbolic = true;
                        rest.for_each_var(&mut |_| symbolic = false);
                        rest.for_each_call(&mut |_, _| symbolic = false);
                        symbolic.then_some(rest)
                    })
                    .ok_or_else(|| {
                        format!(
                            "the extent of {} in dimension {} is not an affine bound",
                            u.name,
                            i + 1
                        )
                    })?;
                let extent = self.affine(&upper.plus(&Expr::constant(1)), &|_| None)?;
                let _ = writeln!(
                    out,
                    "    {{\n        const drv_ix e = {extent};\n        \
                     if (a{i} < 0 || a{i} >= e)\n            \
                     drv_rule_read(ctx, rule, a->name, a{i}, e);\n        \
                     at = drv_iadd(ctx, drv_imul(ctx, at, e), a{i});\n    }}"
                );
            }
        }
        out.push_str(
            "    if (at < 0 || at >= a->len)\n        \
             drv_rule_read(ctx, rule, a->name, at, a->len);\n    \
             return drv_int(a, at);\n}\n",
        );
        Ok(())
    }

    /// The length check of index array `u` when its domain is one box whose
    /// bounds are affine in the symbols (as every built-in's is): the
    /// product of its extents, or 0 when it is empty. Another domain is left
    /// to the bounds-checked reads.
    fn length_check(&self, u: &UfDecl) -> Result<String, Unsupported> {
        let p = &self.prefix;
        let [conj] = u.domain.conjunctions() else {
            return Ok(String::new());
        };
        let symbolic = |e: &Expr, v: Var| {
            let mut only = true;
            e.for_each_var(&mut |w| only &= w == v);
            e.for_each_call(&mut |_, _| only = false);
            only
        };
        let n = u.domain.arity();
        let mut dims = Vec::new();
        for i in 0..n {
            let v = Var::Tuple(i);
            let (mut lo, mut hi) = (Vec::new(), Vec::new());
            for c in conj.constraints() {
                let a = c.expr().coefficient_of_var(v);
                if a == 0 {
                    continue;
                }
                if !symbolic(c.expr(), v) {
                    return Ok(String::new());
                }
                // a·v + rest >= 0 (or = 0), so v >= ceil(-rest / a) when
                // a > 0 and v <= floor(rest / -a) when a < 0: both bounds of
                // `x / |a|` with x = -rest or rest; an equality gives both.
                let rest = self.affine(&c.expr().plus(&Expr::var(v).scale(-a)), &|_| None)?;
                let x = if a > 0 {
                    format!("drv_ineg(ctx, {rest})")
                } else {
                    rest
                };
                let m = int_literal(a.abs());
                if a > 0 || c.is_eq() {
                    lo.push(format!("drv_iceil({x}, {m})"));
                }
                if a < 0 || c.is_eq() {
                    hi.push(format!("drv_ifloor({x}, {m})"));
                }
            }
            let (Some(lo), Some(hi)) = (fold("drv_imax", lo), fold("drv_imin", hi)) else {
                return Ok(String::new());
            };
            dims.push((lo, hi));
        }
        let mut code = String::from("    {\n        drv_ix needs = 1;\n        int empty = 0;\n");
        for (lo, hi) in dims {
            let _ = writeln!(
                code,
                "        {{\n            const drv_ix lo = {lo}, hi = {hi};\n            \
                 if (lo > hi)\n                empty = 1;\n            \
                 else\n                needs = drv_imul(ctx, needs, drv_iadd(ctx, hi, 1));\n        }}"
            );
        }
        let k = self.ufs[&u.name];
        code.push_str("        if (empty)\n            needs = 0;\n");
        // A domain emptied by a negative symbol says so, as spf does.
        let symbols: std::collections::BTreeSet<String> = u
            .domain
            .conjunctions()
            .iter()
            .flat_map(|c| c.symbols())
            .collect();
        for (name, slot) in symbols.iter().filter_map(|s| Some((s, self.syms.get(s)?))) {
            let _ = writeln!(
                code,
                "        if (needs == 0 && {p}_ru[{k}]->len != 0 && {p}_rs[{slot}] < 0)\n            \
                 drv_die(\"%s: %s has %lld values but its domain %s needs 0: %s is %lld, and a \
                 size cannot be negative\", ctx, {p}_ru[{k}]->name, (long long){p}_ru[{k}]->len, \
                 {}, {}, (long long){p}_rs[{slot}]);",
                c_str(&u.domain.to_string()),
                c_str(name)
            );
        }
        let _ = writeln!(
            code,
            "        if ({p}_ru[{k}]->len != needs)\n            \
             drv_die(\"%s: %s has %lld values but its domain %s needs %lld\", ctx, {p}_ru[{k}]->name,\n                    \
             (long long){p}_ru[{k}]->len, {}, (long long)needs);\n    }}",
            c_str(&u.domain.to_string())
        );
        Ok(code)
    }

    /// `drv_key{k}(ctx, p, key)`: comparator `k`'s key of the arguments `p`.
    fn key_function(
        &mut self,
        out: &mut String,
        k: usize,
        c: &Comparator,
    ) -> Result<(), Unsupported> {
        let what = c_str(&format!("comparator {}", c.name));
        let p = &self.prefix;
        let _ = writeln!(
            out,
            "static DRV_UNUSED void {p}_key{k}(const char *ctx, const int64_t *p, drv_wide *key)\n{{\n    \
             static const char what[] = {what};\n    (void)p;\n    (void)what;"
        );
        for (i, e) in c.key.iter().enumerate() {
            let _ = writeln!(out, "    key[{i}] = {};", key_expr(e, c.params.len())?);
        }
        out.push_str("}\n");
        Ok(())
    }

    /// An affine expression as a checked 64-bit C expression (`drv_ix`);
    /// `var` names the rule variables (`None` for an expression over
    /// symbols only).
    fn affine(
        &self,
        e: &Expr,
        var: &dyn Fn(usize) -> Option<String>,
    ) -> Result<String, Unsupported> {
        let mut terms = Vec::new();
        for (a, coef) in e.terms() {
            terms.push((coef, self.atom(a, var)?));
        }
        Ok(sum(terms, e.constant_term()))
    }

    fn atom(&self, a: &Atom, var: &dyn Fn(usize) -> Option<String>) -> Result<String, Unsupported> {
        match a {
            Atom::Var(Var::Tuple(i)) => var(*i)
                .map(|v| format!("(drv_ix){v}"))
                .ok_or_else(|| "a variable where none is bound".to_string()),
            Atom::Var(Var::Exist(_)) => Err("an existential variable".into()),
            Atom::Sym(s) => self
                .syms
                .get(s)
                .map(|k| format!("(drv_ix){}_rs[{k}]", self.prefix))
                .ok_or_else(|| format!("`{s}` is not a symbol of {}", self.d.name)),
            Atom::Uf(name, args) => {
                let Some(&k) = self.ufs.get(name) else {
                    return Err(format!("the comparator {name} inside arithmetic"));
                };
                let mut text = format!("{}_uf{k}(ctx, rule", self.prefix);
                for arg in args {
                    let _ = write!(text, ", {}", self.affine(arg, var)?);
                }
                text.push(')');
                Ok(text)
            }
            Atom::Div(x, m) => Ok(format!(
                "drv_ifloor({}, {})",
                self.affine(x, var)?,
                int_literal(*m)
            )),
        }
    }

    /// A helper `static int drv_holds{N}(const char *ctx, const int64_t *v)`
    /// deciding constraint `c` at the rule point `v` (comparators through
    /// their keys, as the validator decides them); returns its name.
    fn holds_function(&mut self, rule: &UfRule, c: &Constraint) -> Result<String, Unsupported> {
        let name = self.fresh_name("holds");
        let var = |i: usize| Some(format!("v[{i}]"));
        let decide = |x: &str| match c.kind() {
            ConstraintKind::Eq => format!("{x} == 0"),
            ConstraintKind::Geq => format!("{x} >= 0"),
        };
        let e = c.expr();
        let mut code = String::new();
        let mut calls = Vec::new();
        let mut others = Expr::constant(e.constant_term());
        for (atom, coef) in e.terms() {
            match atom {
                Atom::Uf(f, args) if self.d.uf(f).is_none() => {
                    let (k, cmp) = self
                        .d
                        .comparators
                        .iter()
                        .enumerate()
                        .find(|(_, cmp)| cmp.name == *f)
                        .ok_or_else(|| {
                            format!("`{f}` is neither an index array nor a comparator")
                        })?;
                    let mut nested = false;
                    for a in args {
                        a.for_each_call(&mut |g, _| nested |= self.d.uf(g).is_none());
                    }
                    if nested {
                        return Err(format!("a comparator call inside {f}'s arguments"));
                    }
                    let vals: Vec<String> = args
                        .iter()
                        .map(|a| self.affine(a, &var))
                        .collect::<Result<_, Unsupported>>()?;
                    let i = calls.len();
                    let _ = writeln!(
                        code,
                        "    drv_wide key{i}[{}];\n    {}_key{k}(ctx, (const int64_t[]){{{}}}, key{i});",
                        cmp.key.len().max(1),
                        self.prefix,
                        if vals.is_empty() { "0".to_string() } else { vals.join(", ") }
                    );
                    calls.push((cmp, coef, i));
                }
                _ => others.add_term(atom.clone(), coef),
            }
        }
        let result = if calls.is_empty() {
            decide(&self.affine(e, &var)?)
        } else {
            // Two calls of one comparator, compared by keys.
            let by_keys = match &calls[..] {
                [(c1, a, i), (c2, b, j)] if c1.name == c2.name && others.is_constant() => {
                    let (plus, minus) = if *a == 1 { (i, j) } else { (j, i) };
                    let cmp = format!("drv_key_cmp({}, key{plus}, key{minus})", c1.key.len());
                    match (*a == -*b && a.abs() == 1, c.kind(), e.constant_term()) {
                        (true, ConstraintKind::Eq, 0) => Some(format!("{cmp} == 0")),
                        (true, ConstraintKind::Geq, 0) => Some(format!("{cmp} >= 0")),
                        (true, ConstraintKind::Geq, -1) => Some(format!("{cmp} > 0")),
                        _ => None,
                    }
                }
                _ => None,
            };
            match by_keys {
                Some(r) => r,
                None => {
                    // Only one-component keys take part in arithmetic.
                    let mut acc = self.affine(&others, &var)?;
                    for (cmp, coef, i) in &calls {
                        if cmp.key.len() != 1 {
                            return Err(format!(
                                "comparator {}'s key has {} components, so a call can only be \
                                 compared with another call",
                                cmp.name,
                                cmp.key.len()
                            ));
                        }
                        acc = format!(
                            "drv_wadd(ctx, {acc}, drv_wmul(ctx, (drv_wide){}, key{i}[0]))",
                            int_literal(*coef)
                        );
                    }
                    decide(&acc)
                }
            }
        };
        let _ = writeln!(
            self.helpers,
            "static int {name}(const char *ctx, const int64_t *v)\n{{\n    \
             static const char rule[] = {};\n    (void)rule;\n    (void)v;\n{code}    return {result};\n}}",
            c_str(&rule_text(rule))
        );
        Ok(name)
    }

    /// Scans `conjunctions` (each over the same tuple) into loops, calling
    /// `at` for the C of one point whose coordinates are in `v`.
    fn scanned(
        &mut self,
        conjunctions: Vec<Conjunction>,
        at: &str,
        indent: usize,
    ) -> Result<String, Unsupported> {
        let body = self.scan_points(conjunctions)?;
        let mut out = String::new();
        self.nodes(&body, at, indent, &mut BTreeMap::new(), &mut out)?;
        Ok(out)
    }

    /// The loop nest that enumerates the points of `conjunctions` (each
    /// over the same tuple), as the scanner gives it.
    fn scan_points(&mut self, conjunctions: Vec<Conjunction>) -> Result<Vec<Node>, Unsupported> {
        let Some(arity) = conjunctions.first().map(|c| c.tuple_names().len()) else {
            return Ok(Vec::new());
        };
        let mut comp = Computation {
            name: "drv_check".into(),
            symbols: self.d.symbols.clone(),
            ..Computation::default()
        };
        for (k, conj) in conjunctions.into_iter().enumerate() {
            let tuple: Vec<String> = (0..arity).map(|i| format!("t{i}")).collect();
            let time: Vec<String> = std::iter::once(k.to_string())
                .chain(tuple.iter().flat_map(|t| [t.clone(), "0".into()]))
                .collect();
            let schedule: Relation = format!("{{[{}] -> [{}]}}", tuple.join(", "), time.join(", "))
                .parse()
                .map_err(|e| format!("a schedule: {e}"))?;
            comp.stmts.push(Stmt {
                name: format!("P{k}"),
                body: Body::Seq(Vec::new()),
                domain: Set::from_formula(Formula::from_conjunctions(arity, vec![conj])),
                schedule,
            });
        }
        let program = scan(&comp, &self.scan_env).map_err(|e| format!("scanning a check: {e}"))?;
        Ok(program.body)
    }

    fn nodes(
        &mut self,
        nodes: &[Node],
        at: &str,
        indent: usize,
        names: &mut BTreeMap<String, String>,
        out: &mut String,
    ) -> Result<(), Unsupported> {
        let pad = " ".repeat(indent);
        for node in nodes {
            match node {
                Node::For {
                    var,
                    lower,
                    upper,
                    body,
                } => {
                    let v = format!("l{}", self.next());
                    let lo = self.index(lower, names)?;
                    let hi = self.index(upper, names)?;
                    let _ = writeln!(
                        out,
                        "{pad}{{\n{pad}    const drv_ix {v}_end = {hi};\n{pad}    int64_t {v};\n{pad}    \
                         for ({v} = {lo}; {v} < {v}_end; {v}++) {{"
                    );
                    let old = names.insert(var.clone(), v);
                    self.nodes(body, at, indent + 8, names, out)?;
                    restore(names, var, old);
                    let _ = writeln!(out, "{pad}    }}\n{pad}}}");
                }
                Node::Let { var, value, body } => {
                    let v = format!("l{}", self.next());
                    let value = self.index(value, names)?;
                    let _ = writeln!(out, "{pad}{{\n{pad}    const int64_t {v} = {value};");
                    let old = names.insert(var.clone(), v);
                    self.nodes(body, at, indent + 4, names, out)?;
                    restore(names, var, old);
                    let _ = writeln!(out, "{pad}}}");
                }
                Node::If { guards, body } => {
                    let mut conds = Vec::new();
                    for g in guards {
                        let op = match g.op {
                            GuardOp::Eq => "==",
                            GuardOp::Le => "<=",
                        };
                        conds.push(format!(
                            "{} {op} {}",
                            self.index(&g.lhs, names)?,
                            self.index(&g.rhs, names)?
                        ));
                    }
                    let _ = writeln!(out, "{pad}if ({}) {{", conds.join(" && "));
                    self.nodes(body, at, indent + 4, names, out)?;
                    let _ = writeln!(out, "{pad}}}");
                }
                Node::Stmt { iterators, .. } => {
                    let mut vals = Vec::new();
                    for it in iterators {
                        vals.push(self.index(it, names)?);
                    }
                    let _ = writeln!(
                        out,
                        "{pad}{{\n{pad}    const int64_t v[] = {{{}}};\n{}{pad}}}",
                        if vals.is_empty() {
                            "0".into()
                        } else {
                            vals.join(", ")
                        },
                        at.lines()
                            .map(|l| format!("{pad}    {l}\n"))
                            .collect::<String>()
                    );
                }
            }
        }
        Ok(())
    }

    /// A scanned index expression as a checked 64-bit C expression.
    fn index(
        &self,
        e: &IndexExpr,
        names: &BTreeMap<String, String>,
    ) -> Result<String, Unsupported> {
        Ok(match e {
            IndexExpr::Const(k) => format!("(drv_ix){}", int_literal(*k)),
            IndexExpr::Var(v) => format!(
                "(drv_ix){}",
                names
                    .get(v)
                    .ok_or_else(|| format!("the loop variable {v} is not bound"))?
            ),
            IndexExpr::Sym(s) => format!(
                "(drv_ix){}_rs[{}]",
                self.prefix,
                self.syms
                    .get(s)
                    .ok_or_else(|| format!("`{s}` is not a symbol"))?
            ),
            IndexExpr::Call(name, args) => {
                let k = self
                    .ufs
                    .get(name)
                    .ok_or_else(|| format!("`{name}` is not an index array"))?;
                let mut text = format!("{}_uf{k}(ctx, rule", self.prefix);
                for a in args {
                    let _ = write!(text, ", {}", self.index(a, names)?);
                }
                text.push(')');
                text
            }
            IndexExpr::Sum(terms, k) => {
                let mut printed = Vec::new();
                for (c, t) in terms {
                    printed.push((*c, self.index(t, names)?));
                }
                sum(printed, *k)
            }
            IndexExpr::Min(xs) | IndexExpr::Max(xs) => {
                let f = if matches!(e, IndexExpr::Min(_)) {
                    "drv_imin"
                } else {
                    "drv_imax"
                };
                let mut it = xs.iter();
                let first = it.next().ok_or("an empty min or max")?;
                let mut acc = self.index(first, names)?;
                for x in it {
                    acc = format!("{f}({acc}, {})", self.index(x, names)?);
                }
                acc
            }
            IndexExpr::FloorDiv(x, m) => {
                format!("drv_ifloor({}, {})", self.index(x, names)?, int_literal(*m))
            }
            IndexExpr::CeilDiv(x, m) => {
                format!("drv_iceil({}, {})", self.index(x, names)?, int_literal(*m))
            }
        })
    }

    /// The guarded conjunctions of `constraints` over `vars`, one per
    /// combination of the index arrays' domain conjunctions.
    fn guarded(
        &self,
        vars: Vec<String>,
        constraints: &[Normalized],
        more: &[Expr],
    ) -> Result<Vec<Conjunction>, Unsupported> {
        let exprs: Vec<&Expr> = constraints
            .iter()
            .filter_map(|n| match n {
                Normalized::Constraint(c) => Some(c.expr()),
                _ => None,
            })
            .chain(more)
            .collect();
        let guards = domain_guards(self.d, exprs).map_err(|e| e.to_string())?;
        Ok(guards
            .into_iter()
            .filter_map(|guard| {
                let mut all = constraints.to_vec();
                all.extend(guard);
                Conjunction::from_parts(vars.clone(), Vec::new(), substitute_definitions(all))
            })
            .collect())
    }

    /// One enumeration of a rule check (adjacent pairs or every point).
    fn points_check(&mut self, rule: &UfRule, check: &Check) -> Result<(), Unsupported> {
        let mut enumerated = Vec::new();
        let mut filters = Vec::new();
        for n in &check.premise {
            match n {
                Normalized::Constraint(c) if self.d.mentions_comparator(c.expr()) => {
                    filters.push(self.holds_function(rule, c)?)
                }
                other => enumerated.push(other.clone()),
            }
        }
        let conclusion = self.holds_function(rule, &check.conclusion)?;
        let mut more = vec![check.conclusion.expr().clone()];
        for n in &check.premise {
            if let Normalized::Constraint(c) = n {
                more.push(c.expr().clone());
            }
        }
        let conjunctions = self.guarded(rule.vars.clone(), &enumerated, &more)?;
        let mut test: Vec<String> = filters.iter().map(|f| format!("{f}(ctx, v)")).collect();
        test.push(format!("!{conclusion}(ctx, v)"));
        let mut at = String::new();
        if !check.adjacent {
            let _ = writeln!(
                at,
                "if (++evaluations > budget)\n    drv_rule_expensive(ctx, rule, budget);"
            );
        }
        let _ = writeln!(
            at,
            "if ({})\n    drv_rule_violated(ctx, rule, names, {}, {});",
            test.join(" && "),
            rule.vars.len(),
            copy_of("v", rule.vars.len())
        );
        let (rule_name, names) = (c_str(&rule_text(rule)), c_str_list(&rule.vars));
        if check.adjacent {
            // No budget to count: a part, which may run on several
            // threads (the instance's values measure the work).
            let part = self.fresh_name("rule");
            let (lo, hi) = self.part_function(
                &part,
                &format!(
                    "    static const char rule[] = {rule_name};\n    \
                     static const char *const names[] = {{{names}}};\n    \
                     const char *ctx = arg;\n    (void)names;\n    (void)fp;\n"
                ),
                conjunctions,
                &at,
                None,
            )?;
            let _ = writeln!(
                self.body,
                "    {{ /* adjacent pairs */\n        static const char rule[] = {rule_name};\n        \
                 (void)rule;\n        \
                 drv_parts_run({part}, ctx, {lo}, {hi}, drv_array_named(x, ctx, {})->len, 1, NULL, 0);\n    }}",
                c_str(&self.d.data_name)
            );
            return Ok(());
        }
        let loops = self.scanned(conjunctions, &at, 8)?;
        let _ = writeln!(
            self.body,
            "    {{ /* every point */\n        static const char rule[] = {rule_name};\n        \
             static const char *const names[] = {{{names}}};\n        \
             const int64_t budget = INT64_C({RULE_BUDGET});\n        int64_t evaluations = 0;\n        \
             (void)names;\n        (void)budget;\n        (void)evaluations;\n{loops}    }}"
        );
        Ok(())
    }

    /// A rule checked by a join on keys: each side's points (the shared
    /// variables, then its own) become records of their keys and own
    /// variable, sorted and merged by `drv_join`, which calls a pair
    /// function that rebuilds the rule's point and tests the conclusion.
    fn join_check(&mut self, rule: &UfRule, join: &Join) -> Result<(), Unsupported> {
        let conclusion = self.holds_function(rule, &join.conclusion)?;
        let nk = join.keys[0].len();
        let m = join.shared.len();
        // Each side's own variable, then those tied to it.
        let no = 1 + join.tied.len();
        let own: Vec<String> = (m..m + no).map(|i| format!("v[{i}]")).collect();
        let mut sides = String::new();
        for k in 0..2 {
            let vars = join.side_names(rule, k);
            let conjunctions = self.guarded(vars, &join.sides[k], &join.guarded[k])?;
            let keys: Vec<String> = join.keys[k]
                .iter()
                .map(|e| self.affine(e, &|i| (i < m + no).then(|| format!("v[{i}]"))))
                .collect::<Result<_, Unsupported>>()?;
            let at = format!(
                "drv_records_push(&side[{k}], (const int64_t[]){{{}}}, (const int64_t[]){{{}}});",
                keys.join(", "),
                own.join(", ")
            );
            sides.push_str(&self.scanned(conjunctions, &at, 8)?);
        }
        // The rule's point from two records: the shared variables are the
        // first keys, each side's own variables follow the keys.
        let side_of = |i: usize| {
            let pairs = std::iter::once(join.pair).chain(join.tied.iter().copied());
            pairs.enumerate().find_map(|(j, (x, y))| {
                if i == x {
                    Some(format!("a[{}]", nk + j))
                } else if i == y {
                    Some(format!("b[{}]", nk + j))
                } else {
                    None
                }
            })
        };
        let point: Vec<String> = (0..rule.vars.len())
            .map(|i| {
                if let Some(own) = side_of(i) {
                    own
                } else {
                    let j = join.shared.iter().position(|&s| s == i);
                    let j = j.expect("every other variable is shared");
                    format!("a[{j}]")
                }
            })
            .collect();
        let pair = self.fresh_name("pair");
        let _ = writeln!(
            self.helpers,
            "static void {pair}(const char *ctx, const int64_t *a, const int64_t *b)\n{{\n    \
             static const char rule[] = {};\n    static const char *const names[] = {{{}}};\n    \
             const int64_t v[] = {{{}}};\n    if (!{conclusion}(ctx, v))\n        \
             drv_rule_violated(ctx, rule, names, {}, v);\n}}",
            c_str(&rule_text(rule)),
            c_str_list(&rule.vars),
            point.join(", "),
            rule.vars.len()
        );
        let consecutive =
            join.ordered && join.sides[0] == join.sides[1] && join.keys[0] == join.keys[1];
        let _ = writeln!(
            self.body,
            "    {{ /* a join on equal keys */\n        static const char rule[] = {};\n        \
             drv_records side[2] = {{{{NULL, 0, 0, {nk}, {no}}}, {{NULL, 0, 0, {nk}, {no}}}}};\n{sides}        \
             drv_join(ctx, rule, &side[0], &side[1], {}, {}, INT64_C({RULE_BUDGET}), {pair});\n        \
             drv_records_free(&side[0]);\n        drv_records_free(&side[1]);\n    }}",
            c_str(&rule_text(rule)),
            i32::from(join.ordered),
            i32::from(consecutive),
        );
        Ok(())
    }

    /// Prints the loops over the points of `conjunctions`, running `at` at
    /// each, as the part `name` (`drv_part` in the runtime: the outermost
    /// loop over `[lo, hi)`, which `drv_parts_run` may cut into ranges run
    /// on several threads) after `prelude`; gives the C of the outermost
    /// loop's bounds in `drv_check_rules`. A nest without one outermost
    /// loop is one part over `[0, 1)`.
    ///
    /// With `keep`, the nest is printed twice: with `at` when the part has
    /// a fingerprint, which `at` adds to as `mine`, a copy of the part's
    /// own (a local whose address never escapes, so that the compiler holds
    /// it in registers across the loop's stores), and with `keep` when it
    /// has none.
    fn part_function(
        &mut self,
        name: &str,
        prelude: &str,
        conjunctions: Vec<Conjunction>,
        at: &str,
        keep: Option<&str>,
    ) -> Result<(String, String), Unsupported> {
        let nest = self.scan_points(conjunctions)?;
        let (lo, hi) = match nest.as_slice() {
            [Node::For { lower, upper, .. }] => {
                let top = BTreeMap::new();
                (self.index(lower, &top)?, self.index(upper, &top)?)
            }
            _ => ("(drv_ix)0".into(), "(drv_ix)1".into()),
        };
        let loops = match keep {
            None => self.part_loops(&nest, at)?,
            Some(keep) => format!(
                "    if (fp != NULL) {{\n    drv_fp mine = *fp;\n{}    *fp = mine;\n    }} else {{\n{}    }}\n",
                self.part_loops(&nest, at)?,
                self.part_loops(&nest, keep)?
            ),
        };
        let _ = writeln!(
            self.helpers,
            "static void {name}(const void *arg, drv_fp *fp, int64_t lo, int64_t hi)\n{{\n{prelude}{loops}}}"
        );
        Ok((lo, hi))
    }

    /// The loops of a part over the scanned `nest`, its outermost loop
    /// over `[lo, hi)`, running `at` at each point.
    fn part_loops(&mut self, nest: &[Node], at: &str) -> Result<String, Unsupported> {
        Ok(match nest {
            [Node::For { var, body, .. }] => {
                let v = format!("l{}", self.next());
                let mut names = BTreeMap::from([(var.clone(), v.clone())]);
                let mut inner = String::new();
                self.nodes(body, at, 8, &mut names, &mut inner)?;
                format!("    int64_t {v};\n    for ({v} = lo; {v} < hi; {v}++) {{\n{inner}    }}\n")
            }
            nodes => {
                let mut inner = String::from("    (void)lo;\n    (void)hi;\n");
                self.nodes(nodes, at, 4, &mut BTreeMap::new(), &mut inner)?;
                inner
            }
        })
    }

    /// Every nonzero value addressed by a point of the map, and no two
    /// nonzero entries at one coordinate (`oracle::check_storage`). The
    /// loops are a part ([`Emitter::part_function`]), which a library's
    /// fingerprinting check runs on several threads.
    fn storage_check(&mut self) -> Result<(), Unsupported> {
        let n_dense = self.d.map.out_arity();
        let coords: Vec<String> = (0..n_dense)
            .map(|i| format!("v[{}]", self.d.map.in_arity() + i))
            .collect();
        // A nonzero entry goes into the part's fingerprint, or, without
        // one, into the check's entries.
        let entry = format!(
            "{n_dense}, (const int64_t[]){{{}}}, drv_value_at(values, k)",
            coords.join(", ")
        );
        let (extents, conjunctions, position) = self.map_point_nest("")?;
        let tail = |add: String| {
            format!(
                "{position}addressed[k] = 1;\nif (drv_value_at(values, k) != 0.0)\n    {add};\n"
            )
        };
        let at = tail(format!("drv_fp_add(&mine, {entry})"));
        let keep = tail(format!("drv_storage_entry(s->entries, {entry}, k)"));
        let n_pos = extents.len();
        let part = self.fresh_name("storage");
        let (lo, hi) = self.part_function(
            &part,
            "    static const char rule[] = \"the sparse-to-dense map\";\n    \
             const drv_storage *s = arg;\n    const char *ctx = s->ctx;\n    \
             const drv_array *values = s->values;\n    const int64_t *ext = s->ext;\n    \
             unsigned char *addressed = s->addressed;\n    (void)rule;\n",
            conjunctions,
            &at,
            Some(&keep),
        )?;
        let _ = writeln!(
            self.body,
            "    {{ /* storage: every nonzero value addressed, no coordinate twice */\n        \
             static const char rule[] = \"the sparse-to-dense map\";\n        \
             const drv_array *values = drv_array_named(x, ctx, {});\n        \
             const int64_t ext[] = {{{}}};\n        unsigned char *addressed;\n        \
             drv_entries entries = {{NULL, 0, 0}};\n        \
             const int64_t total = drv_storage_total(ctx, values, ext, {n_pos});\n        \
             drv_storage s;\n        (void)rule;\n        \
             addressed = drv_alloc(total > 0 ? total : 1, 1);\n        memset(addressed, 0, (size_t)(total > 0 ? total : 1));\n        \
             drv_entries_reserve(&entries, values, total);\n        \
             s.ctx = ctx;\n        s.values = values;\n        s.ext = ext;\n        \
             s.addressed = addressed;\n        s.entries = &entries;\n        \
             drv_parts_run({part}, &s, {lo}, {hi}, total, drv_print != NULL, drv_print, {n_dense});\n        \
             drv_storage_finish(ctx, values, addressed, total, &entries, {n_dense}, ext, {n_pos}, {});\n    }}",
            c_str(&self.d.data_name),
            extents.join(", "),
            i32::from(self.d.padding)
        );
        Ok(())
    }

    /// The body of `drv_check_representable`: every entry of the instance
    /// the conversion visits (a padded source's nonzero ones) satisfies the destination's conditions on single entries
    /// ([`Representable`]), else the program stops naming the entry.
    fn representable_check(&mut self, storable: &Representable) -> Result<String, Unsupported> {
        if storable.is_everything() {
            return Ok(String::new());
        }
        let n_sparse = self.d.map.in_arity();
        let coordinate = |i: usize| Some(format!("v[{}]", n_sparse + i));
        let mut holds = Vec::new();
        for c in &storable.conditions {
            let e = self.affine(c.expr(), &coordinate)?;
            holds.push(if c.is_eq() {
                format!("({e}) == 0")
            } else {
                format!("({e}) >= 0")
            });
        }
        let n_dense = self.d.map.out_arity();
        let coords: Vec<String> = (0..n_dense).filter_map(coordinate).collect();
        // A padded source's zeros are skipped by the conversion; any other
        // stored point is visited.
        let mut tail = format!(
            "if ({}) {{\n",
            if self.d.padding {
                "drv_value_at(values, k) != 0.0"
            } else {
                "1"
            }
        );
        if !holds.is_empty() {
            let conditions = storable
                .conditions
                .iter()
                .map(|c| storable.describe(c))
                .collect::<Vec<_>>()
                .join(" and ");
            let _ = writeln!(
                tail,
                "    if (!({}))\n        \
                 drv_unrepresentable(ctx, {n_dense}, (const int64_t[]){{{}}}, {}, {});",
                holds.join(" && "),
                coords.join(", "),
                c_str(&storable.format),
                c_str(&conditions)
            );
        }
        // Each group's entries are recorded, then sorted by group and
        // counted after the loops.
        let (mut declare, mut count) = (String::new(), String::new());
        for (g, c) in storable.capacities.iter().enumerate() {
            let Some(group) = &c.group else {
                return Err(format!(
                    "it limits the entries per group, and {}",
                    storable.describe_capacity(c)
                ));
            };
            let keys = group
                .iter()
                .map(|e| self.affine(e, &coordinate))
                .collect::<Result<Vec<_>, _>>()?;
            let _ = writeln!(
                declare,
                "        drv_groups group{g} = {{NULL, 0, 0, {}, {n_dense}}};",
                keys.len()
            );
            let _ = writeln!(
                tail,
                "    drv_groups_add(&group{g}, (const int64_t[]){{{}}}, (const int64_t[]){{{}}});",
                keys.join(", "),
                coords.join(", ")
            );
            let _ = writeln!(
                count,
                "        drv_groups_check(&group{g}, {}, ctx, {}, {});",
                c.at_most,
                c_str(&storable.format),
                c_str(&storable.describe_capacity(c))
            );
        }
        tail.push('}');
        let (extents, loops) = self.map_points(&tail)?;
        Ok(format!(
            "    {{ /* every entry storable in {} */\n        \
             static const char rule[] = \"the sparse-to-dense map\";\n        \
             const drv_array *values = drv_array_named(x, ctx, {});\n        \
             const int64_t ext[] = {{{}}};\n{declare}{loops}{count}    }}\n",
            storable.format,
            c_str(&self.d.data_name),
            extents.join(", "),
        ))
    }

    /// The value array's extents and the loops over the map's points that
    /// run `tail` at each, with the point in `v` and its value's linear
    /// position in `k` (checked against `ext`).
    fn map_points(&mut self, tail: &str) -> Result<(Vec<String>, String), Unsupported> {
        let (extents, conjunctions, at) = self.map_point_nest(tail)?;
        let loops = self.scanned(conjunctions, &at, 8)?;
        Ok((extents, loops))
    }

    /// [`Emitter::map_points`] before scanning: the value array's extents,
    /// the map's points (guarded), and the C run at each point.
    fn map_point_nest(
        &mut self,
        tail: &str,
    ) -> Result<(Vec<String>, Vec<Conjunction>, String), Unsupported> {
        let d = self.d;
        let n_sparse = d.map.in_arity();
        let n_dense = d.map.out_arity();
        if n_dense > 3 {
            return Err(format!(
                "{n_dense} dimensions; the storage check handles up to 3"
            ));
        }
        // The data relation: each position defined by an equality.
        let [data] = d.data.conjunctions() else {
            return Err("the data relation is not one conjunction".into());
        };
        if data.num_exists() > 0 {
            return Err("an existential variable in the data relation".into());
        }
        let n_pos = d.data.out_arity();
        let mut defs = Vec::new();
        for j in 0..n_pos {
            let out = Var::Tuple(n_sparse + j);
            let def = data
                .constraints()
                .filter(|c| c.is_eq())
                .find_map(|c| {
                    let coef = c.expr().coefficient_of_var(out);
                    let mut others = false;
                    for i in 0..n_pos {
                        others |= i != j && c.expr().mentions(Var::Tuple(n_sparse + i));
                    }
                    if coef.abs() != 1 || others || c.expr().mentions_in_uf_args(out) {
                        return None;
                    }
                    // coef·out + rest = 0, so out = -coef·rest.
                    let rest = c.expr().plus(&Expr::var(out).scale(-coef));
                    Some(rest.scale(-coef))
                })
                .ok_or_else(|| {
                    format!("position {} of the data relation has no definition", j + 1)
                })?;
            defs.push(def);
        }
        let sparse_var = |i: usize| (i < n_sparse).then(|| format!("v[{i}]"));
        let mut position = Vec::new();
        for def in &defs {
            position.push(self.affine(def, &sparse_var)?);
        }
        let mut extents = Vec::new();
        for e in &d.data_size {
            extents.push(self.affine(e, &|_| None)?);
        }
        if extents.len() != n_pos {
            return Err("the value array's extents and the data relation disagree".into());
        }
        // The map's points, guarded.
        let mut conjunctions = Vec::new();
        for conj in d.map.conjunctions() {
            if conj.num_exists() > 0 {
                return Err("an existential variable in the map".into());
            }
            let constraints: Vec<Normalized> = conj
                .constraints()
                .cloned()
                .map(Normalized::Constraint)
                .collect();
            conjunctions.extend(self.guarded(conj.tuple_names().to_vec(), &constraints, &[])?);
        }
        let mut at = String::new();
        let _ = writeln!(
            at,
            "const int64_t pos[] = {{{}}};\nint64_t k = 0;",
            position.join(", ")
        );
        for i in 0..n_pos {
            let _ = writeln!(
                at,
                "if (pos[{i}] < 0 || pos[{i}] >= ext[{i}])\n    \
                 drv_storage_outside(ctx, {}, {n_sparse}, values->name, {}, ext, {n_pos});\n\
                 k = k * ext[{i}] + pos[{i}];",
                copy_of("v", n_sparse),
                copy_of("pos", n_pos)
            );
        }
        if !tail.is_empty() {
            at.push_str(tail);
            at.push('\n');
        }
        Ok((extents, conjunctions, at))
    }
}

/// A copy of the first `n` elements of the C array `name`, as a compound
/// literal: what a point's array is passed to a failure's report as. The
/// array's own address then escapes nowhere, so the compiler keeps its
/// elements in registers on the path that does not fail (building the
/// array on the stack at every point cost about a tenth of a check);
/// `name` itself when `n` is 0 (C has no empty compound literal).
fn copy_of(name: &str, n: usize) -> String {
    if n == 0 {
        return name.to_string();
    }
    let elements: Vec<String> = (0..n).map(|i| format!("{name}[{i}]")).collect();
    format!("(const int64_t[]){{{}}}", elements.join(", "))
}

/// `constraints` with every variable an equality defines from earlier ones
/// (`k2 = k1 + 1`) replaced by its definition in the other constraints, so
/// that the scanner bounds the earlier variables by what bounds the later
/// (`k1 + 1 < rowptr(i + 1)`): a loop nest that enumerates adjacent pairs in
/// linear time, as the validator's enumeration does, not every `k1` below
/// `NNZ` with a guard. The set of points is the same.
fn substitute_definitions(mut constraints: Vec<Normalized>) -> Vec<Normalized> {
    let mut done = Vec::new();
    loop {
        // The latest variable an equality defines, outside UF arguments.
        let found = constraints.iter().enumerate().find_map(|(i, n)| {
            let Normalized::Constraint(c) = n else {
                return None;
            };
            if !c.is_eq() || done.contains(&i) {
                return None;
            }
            let mut latest = None;
            c.expr().for_each_var(&mut |v| {
                if let Var::Tuple(t) = v {
                    latest = latest.max(Some(t));
                }
            });
            let v = Var::Tuple(latest?);
            let coef = c.expr().coefficient_of_var(v);
            if coef.abs() != 1 || c.expr().mentions_in_uf_args(v) {
                return None;
            }
            // coef·v + rest = 0, so v = -coef·rest.
            let rest = c.expr().plus(&Expr::var(v).scale(-coef));
            Some((i, v, rest.scale(-coef)))
        });
        let Some((i, v, by)) = found else {
            return constraints;
        };
        done.push(i);
        for (j, n) in constraints.iter_mut().enumerate() {
            if let (true, Normalized::Constraint(c)) = (j != i, &*n) {
                if c.mentions(v) {
                    *n = c.substitute_var(v, &by);
                }
            }
        }
    }
}

/// `f(f(a, b), c)` over `xs`; `None` when empty.
fn fold(f: &str, xs: Vec<String>) -> Option<String> {
    xs.into_iter().reduce(|a, b| format!("{f}({a}, {b})"))
}

fn restore(names: &mut BTreeMap<String, String>, var: &str, old: Option<String>) {
    match old {
        Some(o) => names.insert(var.to_string(), o),
        None => names.remove(var),
    };
}

/// `Σ coef·term + constant`, checked, without the multiplications by one
/// and the addition of zero.
fn sum(terms: Vec<(i64, String)>, constant: i64) -> String {
    let mut acc: Option<String> = None;
    for (coef, term) in terms {
        let term = match coef {
            1 => term,
            _ => format!("drv_imul(ctx, (drv_ix){}, {term})", int_literal(coef)),
        };
        acc = Some(match acc {
            None => term,
            Some(a) => format!("drv_iadd(ctx, {a}, {term})"),
        });
    }
    match (acc, constant) {
        (None, k) => format!("(drv_ix){}", int_literal(k)),
        (Some(a), 0) => a,
        (Some(a), k) => format!("drv_iadd(ctx, {a}, (drv_ix){})", int_literal(k)),
    }
}

/// An `int64_t` literal (`INT64_MIN` has none of its own).
fn int_literal(k: i64) -> String {
    if k == i64::MIN {
        "INT64_MIN".into()
    } else if k < 0 {
        format!("(-INT64_C({}))", k.unsigned_abs())
    } else {
        format!("INT64_C({k})")
    }
}

/// A comparator key component as a checked 128-bit C expression over the
/// arguments `p` (`what` names the comparator in errors).
fn key_expr(e: &KeyExpr, params: usize) -> Result<String, Unsupported> {
    Ok(match e {
        KeyExpr::Int(n) => format!("(drv_wide){}", int_literal(*n)),
        KeyExpr::Param(i) if *i < params => format!("(drv_wide)p[{i}]"),
        KeyExpr::Param(i) => return Err(format!("a key uses parameter {i}, which does not exist")),
        KeyExpr::Neg(a) => format!("drv_wneg(ctx, {})", key_expr(a, params)?),
        KeyExpr::Add(a, b) => format!(
            "drv_wadd(ctx, {}, {})",
            key_expr(a, params)?,
            key_expr(b, params)?
        ),
        KeyExpr::Sub(a, b) => format!(
            "drv_wsub(ctx, {}, {})",
            key_expr(a, params)?,
            key_expr(b, params)?
        ),
        KeyExpr::Mul(a, b) => format!(
            "drv_wmul(ctx, {}, {})",
            key_expr(a, params)?,
            key_expr(b, params)?
        ),
        KeyExpr::Div(a, b) => {
            format!(
                "drv_wdiv(ctx, what, {}, {})",
                key_expr(a, params)?,
                key_expr(b, params)?
            )
        }
        KeyExpr::Rem(a, b) => {
            format!(
                "drv_wrem(ctx, what, {}, {})",
                key_expr(a, params)?,
                key_expr(b, params)?
            )
        }
        KeyExpr::Interleave(parts) => {
            let xs: Vec<String> = parts
                .iter()
                .map(|p| key_expr(p, params))
                .collect::<Result<_, _>>()?;
            format!(
                "drv_interleave(ctx, what, {}, (const drv_wide[]){{{}}})",
                xs.len(),
                if xs.is_empty() {
                    "0".into()
                } else {
                    xs.join(", ")
                }
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::{rules_check, Representable};
    use synth::builtin::{builtin_names, load_format};
    use synth::descriptor_file::parse_descriptor;

    const REFUSAL: &str = "cannot check a JSON instance";

    /// Every built-in format's checks print (the differential test in
    /// tests/cli_build_checks.rs runs them).
    #[test]
    fn every_builtin_is_checked_in_c() {
        for name in builtin_names() {
            let d = load_format(name).expect("built-in");
            let code = rules_check(&d, &Representable::of(&d));
            assert!(!code.contains(REFUSAL), "{name}: {code}");
            assert!(code.contains("drv_storage_finish"), "{name}");
        }
    }

    /// A source whose storage check cannot be printed refuses JSON input
    /// with the reason, rather than accept it unchecked.
    #[test]
    fn what_cannot_be_printed_is_refused_with_the_reason() {
        let d = parse_descriptor(
            "format COO4 {
                dense [N0, N1, N2, N3];
                map {[n, a, b, c, e] -> [i, j, k, l] : i = a && j = b && k = c && l = e
                     && 0 <= n < NNZ && a = w(n) && b = x(n) && c = y(n) && e = z(n)};
                data A : {[n, a, b, c, e] -> [n]} size NNZ;
                uf w : {[t] : 0 <= t < NNZ} -> {[u] : 0 <= u < N0};
                uf x : {[t] : 0 <= t < NNZ} -> {[u] : 0 <= u < N1};
                uf y : {[t] : 0 <= t < NNZ} -> {[u] : 0 <= u < N2};
                uf z : {[t] : 0 <= t < NNZ} -> {[u] : 0 <= u < N3};
            }",
        )
        .expect("a descriptor");
        let code = rules_check(&d, &Representable::of(&d));
        assert!(code.contains(REFUSAL), "{code}");
        assert!(code.contains("4 dimensions"), "{code}");
        assert!(code.contains("--unchecked"), "{code}");
    }
}
