//! Value types ([`codegen::ValueType`]): the printers print the `real`
//! data spaces at the type asked for, and the interpreter computes at the
//! input's type exactly: `f32` arithmetic rounded to `f32` at each step,
//! integer values beyond 2^53 kept.

use codegen::ast::LoopProgram;
use codegen::c::emit_c_with;
use codegen::interp::{run, Array, Memory, RunError};
use codegen::rust::emit_rust_with;
use codegen::width::Widths;
use codegen::ValueType;
use iegen::computation::parse_computation;
use iegen::UfEnvironment;

/// A sum, a scaled copy, a running maximum and a temporary of values.
const SUMS: &str = "computation sums(N) {
    in   real t[N];
    out  real y[N];
    out  real total;
    out  real top;
    temp real acc;

    S0: acc += t(n)
        domain {[n] : 0 <= n < N} schedule {[n] -> [0, n, 0]};
    S1: y(n) = t(n) + t(n) + 1
        domain {[n] : 0 <= n < N} schedule {[n] -> [0, n, 1]};
    S2: top max= t(n)
        domain {[n] : 0 <= n < N} schedule {[n] -> [0, n, 2]};
    S3: total = acc
        domain {[n] : n = 0} schedule {[n] -> [1, 0, 0]};
}";

fn program() -> LoopProgram {
    let comp = parse_computation(SUMS).unwrap_or_else(|e| panic!("{e}"));
    codegen::scan(&comp, &UfEnvironment::new()).unwrap_or_else(|e| panic!("{e}"))
}

/// The input `t` and the outputs, allocated at `t`'s value type.
fn memory(t: Array) -> Memory {
    let n = t.len() as i64;
    let mut m = Memory::new().with_symbol("N", n).with_array("t", t);
    codegen::interp::allocate_outputs(&program().computation, &mut m).expect("allocates");
    m
}

#[test]
fn the_printers_print_values_at_the_type_asked_for() {
    let p = program();
    let f64_code = emit_c_with(&p, &Widths::default()).expect("prints");
    assert!(f64_code.contains("const double *restrict t"), "{f64_code}");
    for t in [ValueType::F32, ValueType::I64, ValueType::I32] {
        let w = Widths::default().with_values(t);
        let c = emit_c_with(&p, &w).expect("prints");
        assert!(
            c.contains(&format!("const {} *restrict t", t.c_type())),
            "{t}: {c}"
        );
        assert!(!c.contains("double"), "{t}: no double: {c}");
        let r = emit_rust_with(&p, &w).expect("prints");
        assert!(r.contains(&format!("t: &[{}]", t.rust_type())), "{t}: {r}");
        assert!(!r.contains("f64"), "{t}: no f64: {r}");
    }
}

#[test]
fn float32_runs_round_each_operation_to_float32() {
    let mut t: Vec<f32> = vec![1.0, 0.1, -7.25, 1.0 + f32::EPSILON, 3.0e38];
    t.extend([1.0e-8; 100]);
    let mut m = memory(Array::Real32(t.clone().into()));
    run(&program(), &mut m, None).expect("runs");
    let acc = t.iter().fold(0.0f32, |a, &x| a + x);
    let y: Vec<f32> = t.iter().map(|&x| x + x + 1.0).collect();
    let top = t.iter().fold(0.0f32, |a, &x| if x > a { x } else { a });
    assert_eq!(m.arrays["total"], Array::Real32(vec![acc].into()));
    assert_eq!(m.arrays["y"], Array::Real32(y.into()));
    assert_eq!(m.arrays["top"], Array::Real32(vec![top].into()));
    // Summed in f64 and rounded once, the small terms would count.
    let small = &t[5..];
    let in_f32 = small.iter().fold(1.0f32, |a, &x| a + x);
    let in_f64 = small.iter().fold(1.0f64, |a, &x| a + f64::from(x)) as f32;
    assert_ne!(in_f32, in_f64);
}

#[test]
fn integer_values_beyond_two_to_the_53_stay_exact() {
    let t: Vec<i64> = vec![(1 << 60) + 1, -(1 << 55) - 3, 7];
    let mut m = memory(Array::RealInt(t.clone().into()));
    run(&program(), &mut m, None).expect("runs");
    let y: Vec<i64> = t.iter().map(|&x| x + x + 1).collect();
    assert_eq!(m.arrays["y"], Array::RealInt(y.into()));
    assert_eq!(m.arrays["top"], Array::RealInt(vec![(1 << 60) + 1].into()));
    assert_eq!(
        m.arrays["total"],
        Array::RealInt(vec![t.iter().sum()].into())
    );
    // A sum beyond 64 bits: an error, not a rounded value.
    assert!(matches!(
        run(
            &program(),
            &mut memory(Array::RealInt(vec![i64::MAX, 1].into())),
            None
        ),
        Err(RunError::Overflow { .. })
    ));
    // int32 values: a result beyond int32 is an overflow too.
    let mut m = memory(Array::RealInt32(vec![3, -4].into()));
    run(&program(), &mut m, None).expect("runs");
    assert_eq!(m.arrays["y"], Array::RealInt32(vec![7, -7].into()));
    assert_eq!(m.arrays["total"], Array::RealInt32(vec![-1].into()));
    let big = memory(Array::RealInt32(vec![i32::MAX].into()));
    assert!(matches!(
        run(&program(), &mut big.clone(), None),
        Err(RunError::Overflow { .. })
    ));
}
