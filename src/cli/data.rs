//! Concrete data for `spf run`: symbols and arrays from a JSON file and
//! from `NAME=VALUE` arguments, and the JSON that reports the results.
//!
//! The JSON form is `{"symbols": {"N": 4}, "arrays": {"x": [1.5, 2], ...}}`.
//! On the command line a symbol is `N=4` and an array `x=1.5,2` (or
//! `x=[1.5,2]`); a scalar data space is one value.

use spf::codegen::interp::{Array, Memory};
use spf::iegen::computation::{Computation, ElemType, Role};
use spf::iegen::syntax::{ast::Span, SyntaxError};

use super::error::CliError;

/// Reads symbol and array values for `comp` from a JSON text.
pub fn from_json(
    comp: &Computation,
    file: &str,
    text: &str,
    memory: &mut Memory,
) -> Result<(), CliError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| CliError::Located {
        file: file.to_string(),
        error: SyntaxError {
            line: e.line().max(1),
            column: e.column().max(1),
            span: Span::default(),
            message: {
                // The position is already in front; drop serde's copy of it.
                let text = e.to_string();
                let reason = text.split(" at line ").next().unwrap_or(&text).to_string();
                format!("invalid JSON: {reason}")
            },
        },
    })?;
    let input = |message: String| CliError::Input {
        file: file.to_string(),
        message,
    };
    let object = value
        .as_object()
        .ok_or_else(|| input("expected an object with \"symbols\" and \"arrays\"".into()))?;
    for key in object.keys() {
        if key != "symbols" && key != "arrays" {
            return Err(input(format!(
                "unknown key \"{key}\"; expected \"symbols\" and \"arrays\""
            )));
        }
    }
    if let Some(symbols) = object.get("symbols") {
        let symbols = symbols
            .as_object()
            .ok_or_else(|| input("\"symbols\" must be an object of integers".into()))?;
        for (name, v) in symbols {
            if !comp.symbols.contains(name) {
                return Err(input(format!(
                    "\"{name}\" is not a symbol of `{}` (its symbols: {})",
                    comp.name,
                    comp.symbols.join(", ")
                )));
            }
            let n = v
                .as_i64()
                .ok_or_else(|| input(format!("symbol \"{name}\" must be an integer, not {v}")))?;
            memory.symbols.insert(name.clone(), n);
        }
    }
    if let Some(arrays) = object.get("arrays") {
        let arrays = arrays
            .as_object()
            .ok_or_else(|| input("\"arrays\" must be an object of arrays".into()))?;
        for (name, v) in arrays {
            let elem = space_elem(comp, name).map_err(input)?;
            let items: Vec<&serde_json::Value> = match v {
                serde_json::Value::Array(xs) => xs.iter().collect(),
                scalar => vec![scalar],
            };
            let array = match elem {
                ElemType::Int => Array::Int(
                    items
                        .iter()
                        .map(|x| {
                            x.as_i64().ok_or_else(|| {
                                input(format!("\"{name}\" holds integers; {x} is not one"))
                            })
                        })
                        .collect::<Result<_, _>>()?,
                ),
                ElemType::Real => Array::Real(
                    items
                        .iter()
                        .map(|x| {
                            x.as_f64().ok_or_else(|| {
                                input(format!("\"{name}\" holds numbers; {x} is not one"))
                            })
                        })
                        .collect::<Result<_, _>>()?,
                ),
            };
            memory.arrays.insert(name.clone(), array);
        }
    }
    Ok(())
}

/// Reads one `NAME=VALUE` argument.
pub fn from_assignment(comp: &Computation, arg: &str, memory: &mut Memory) -> Result<(), CliError> {
    let usage = |m: String| CliError::Usage(format!("`{arg}`: {m}"));
    let (name, value) = arg
        .split_once('=')
        .ok_or_else(|| usage("expected NAME=VALUE".into()))?;
    let (name, value) = (name.trim(), value.trim());
    if comp.symbols.iter().any(|s| s == name) {
        let n = value
            .parse::<i64>()
            .map_err(|_| usage(format!("symbol `{name}` needs an integer")))?;
        memory.symbols.insert(name.to_string(), n);
        return Ok(());
    }
    let elem = space_elem(comp, name).map_err(usage)?;
    let list = value.trim_start_matches('[').trim_end_matches(']');
    let items: Vec<&str> = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let array = match elem {
        ElemType::Int => Array::Int(
            items
                .iter()
                .map(|s| {
                    s.parse::<i64>()
                        .map_err(|_| usage(format!("`{s}` is not an integer")))
                })
                .collect::<Result<_, _>>()?,
        ),
        ElemType::Real => Array::Real(
            items
                .iter()
                .map(|s| {
                    s.parse::<f64>()
                        .map_err(|_| usage(format!("`{s}` is not a number")))
                })
                .collect::<Result<_, _>>()?,
        ),
    };
    memory.arrays.insert(name.to_string(), array);
    Ok(())
}

/// The element type of a data space the caller may give.
fn space_elem(comp: &Computation, name: &str) -> Result<ElemType, String> {
    match comp.space(name) {
        Some(d) if d.role == Role::Temp => Err(format!(
            "`{name}` is a temporary of `{}`; the computation allocates it",
            comp.name
        )),
        Some(d) => Ok(d.elem),
        None => Err(format!(
            "`{name}` is neither a symbol nor a data space of `{}`",
            comp.name
        )),
    }
}

/// Gives every `out` data space the caller did not provide an array of its
/// declared size (it starts at zero anyway).
pub fn allocate_outputs(comp: &Computation, memory: &mut Memory) -> Result<(), CliError> {
    codegen::interp::allocate_outputs(comp, memory).map_err(|e| CliError::Usage(e.to_string()))
}

/// The live-out arrays as a JSON object, one key per `out`/`inout` space.
pub fn results_json(comp: &Computation, memory: &Memory) -> String {
    let mut out = serde_json::Map::new();
    for d in comp.spaces.iter().filter(|d| d.role.is_live_out()) {
        let value = match memory.arrays.get(&d.name) {
            Some(Array::Int(v)) => serde_json::json!(v.as_slice()),
            Some(Array::Real(v)) => serde_json::json!(v.as_slice()),
            Some(Array::Real32(v)) => serde_json::json!(v.as_slice()),
            Some(Array::RealInt(v)) => serde_json::json!(v.as_slice()),
            Some(Array::RealInt32(v)) => serde_json::json!(v.as_slice()),
            None => serde_json::Value::Null,
        };
        out.insert(d.name.clone(), value);
    }
    let mut text = serde_json::Value::Object(out).to_string();
    text.push('\n');
    text
}
