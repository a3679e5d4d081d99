//! `spf calc` against brute force with coefficients near the 64-bit limits.
//!
//! Every answer the calculator gives must be exact: `is_empty` and
//! `is_subset` on boxed sets agree with enumerating the box in 128-bit
//! arithmetic, and `compose` of two affine maps maps the box's points as
//! composing them by hand does. Where the calculator's 64-bit coefficients
//! cannot hold a value, the statement must be the located error "integer
//! overflow", never an answer.

use iegen::calc::Calculator;
use proptest::prelude::*;

/// How far the box reaches: every variable in `-BOX..=BOX`.
const BOX: i64 = 3;

/// Coefficients around the interesting powers of two, and small ones.
fn coefficient() -> impl Strategy<Value = i64> {
    prop_oneof![
        -4i64..=4,
        (
            prop::sample::select(vec![31u32, 32, 40, 53, 61, 62]),
            -2i64..=2,
            any::<bool>()
        )
            .prop_map(|(k, d, neg)| {
                let v = (1i64 << k) + d;
                if neg {
                    -v
                } else {
                    v
                }
            }),
        prop::sample::select(vec![i64::MAX, i64::MAX - 1, i64::MIN + 1, -(i64::MAX - 1)]),
    ]
}

/// `a i + b j + c >= 0` (or `= 0`) over the box.
#[derive(Clone, Debug)]
struct Constraint {
    a: i64,
    b: i64,
    c: i64,
    equality: bool,
}

impl Constraint {
    fn text(&self) -> String {
        // Coefficients written `a*i`; a negative literal in parentheses, as
        // `i64::MIN + 1` and friends need.
        let lit = |x: i64| format!("({x})");
        format!(
            "{}*i + {}*j + {} {} 0",
            lit(self.a),
            lit(self.b),
            lit(self.c),
            if self.equality { "=" } else { ">=" }
        )
    }

    fn holds(&self, i: i64, j: i64) -> bool {
        let v = i128::from(self.a) * i128::from(i)
            + i128::from(self.b) * i128::from(j)
            + i128::from(self.c);
        if self.equality {
            v == 0
        } else {
            v >= 0
        }
    }
}

fn constraint() -> impl Strategy<Value = Constraint> {
    (
        coefficient(),
        coefficient(),
        coefficient(),
        prop::bool::weighted(0.2),
    )
        .prop_map(|(a, b, c, equality)| Constraint { a, b, c, equality })
}

fn set_text(cs: &[Constraint]) -> String {
    let mut parts = vec![format!("-{BOX} <= i <= {BOX} && -{BOX} <= j <= {BOX}")];
    parts.extend(cs.iter().map(Constraint::text));
    format!("{{[i, j] : {}}}", parts.join(" && "))
}

fn points(cs: &[Constraint]) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    for i in -BOX..=BOX {
        for j in -BOX..=BOX {
            if cs.iter().all(|c| c.holds(i, j)) {
                out.push((i, j));
            }
        }
    }
    out
}

/// The calculator's printed lines, or its error.
fn run(program: &str) -> Result<Vec<String>, String> {
    let mut lines = Vec::new();
    Calculator::new()
        .run(program, &mut |l| lines.push(l))
        .map(|()| lines)
        .map_err(|e| e.to_string())
}

/// An answer, or the overflow error; anything else fails the case.
fn answer(program: &str) -> Result<Option<Vec<String>>, TestCaseError> {
    match run(program) {
        Ok(lines) => Ok(Some(lines)),
        Err(e) if e.contains("integer overflow") => Ok(None),
        Err(e) => Err(TestCaseError::fail(format!("{program}\n{e}"))),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn emptiness_and_inclusion_are_exact(
        a in prop::collection::vec(constraint(), 1..=2),
        b in prop::collection::vec(constraint(), 1..=2),
    ) {
        let (pa, pb) = (points(&a), points(&b));
        let program = format!(
            "A := {};\nB := {};\nis_empty(A);\nis_subset(A, B);",
            set_text(&a),
            set_text(&b)
        );
        if let Some(lines) = answer(&program)? {
            let subset = pa.iter().all(|p| pb.contains(p));
            prop_assert_eq!(
                lines,
                vec![pa.is_empty().to_string(), subset.to_string()],
                "{}\nA has {:?}\nB has {:?}", program, pa, pb
            );
        }
    }

    #[test]
    fn composition_maps_points_exactly(
        (p, q, r, s) in (coefficient(), coefficient(), coefficient(), coefficient()),
        i in -BOX..=BOX,
    ) {
        // R1 : x -> p x + q, R2 : y -> r y + s; compose(R2, R1) : x -> r (p x + q) + s.
        // Beyond 128 bits is beyond 64 bits too: `None`.
        let expected = (i128::from(p) * i128::from(i) + i128::from(q))
            .checked_mul(i128::from(r))
            .and_then(|v| v.checked_add(i128::from(s)));
        let program = format!(
            "R1 := {{[x] -> [y] : y = ({p})*x + ({q})}};\n\
             R2 := {{[y] -> [z] : z = ({r})*y + ({s})}};\n\
             apply(compose(R2, R1), {{[x] : x = {i}}});"
        );
        if let Some(lines) = answer(&program)? {
            prop_assert_eq!(lines.len(), 1);
            // The exact image, even one just past 64 bits that the
            // printer shows exactly; beyond that only an error is right.
            match expected {
                Some(v) => prop_assert_eq!(&lines[0], &format!("{{[{v}]}}"), "{}", program),
                None => prop_assert!(false, "{} gave {} for an image beyond 128 bits", program, lines[0]),
            }
        }
    }
}
