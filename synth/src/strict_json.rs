//! JSON parsed into a `serde_json::Value` with one rule serde_json does not
//! enforce: an object may not give the same key twice; and its numbers
//! kept as written, so that a real reads as the double nearest to its text.
//!
//! serde_json keeps the last of repeated keys, so `{"NR": 4, "NR": 5}` would
//! silently mean `NR = 5`. An instance file with a repeated key is almost
//! certainly a mistake (two arrays pasted together, a symbol edited in one
//! place but not the other), so it is an error located at the repetition.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// A JSON value read with repeated object keys refused.
pub struct StrictValue(pub Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(StrictValue)
    }
}

struct StrictVisitor;

/// The key under which serde_json (with its `arbitrary_precision` feature)
/// hands a number's text to a visitor, as a map of one entry.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// A number from its text, kept as written: its value as a double is read
/// from the text by Rust's parser, which rounds correctly (serde_json's
/// own reading of reals is off by an ulp on some inputs and reads
/// `2.4703282292062328e-324`, which rounds to the least subnormal, as 0).
/// A real beyond the range of a double is an error.
fn number<E: de::Error>(text: String) -> Result<Value, E> {
    let n: Number = text
        .parse()
        .map_err(|_| E::custom(format!("invalid number `{text}`")))?;
    // An integer of at most 20 characters is finite as a double; only a
    // real or a longer integer is read as one to see.
    let checked = text.len() > 20 || text.contains(['.', 'e', 'E']);
    if checked && n.as_f64().is_none() {
        return Err(E::custom(format!(
            "number out of range: {text} is beyond the range of a double"
        )));
    }
    Ok(Value::Number(n))
}

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Value, E> {
        Number::from_f64(x)
            .map(Value::Number)
            .ok_or_else(|| E::custom(format!("the number {x} is not finite")))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        StrictValue::deserialize(d).map(|v| v.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
        while let Some(StrictValue(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.is_empty() && key == NUMBER_TOKEN {
                return number(map.next_value::<String>()?);
            }
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "the key \"{key}\" is given twice in one object"
                )));
            }
            let StrictValue(v) = map.next_value()?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Value, serde_json::Error> {
        serde_json::from_str::<StrictValue>(text).map(|v| v.0)
    }

    #[test]
    fn values_read_as_serde_json_reads_them() {
        let text =
            r#"{"a": [1, -2, 3.5, 18446744073709551615], "b": {"c": null, "d": "x"}, "e": true}"#;
        assert_eq!(
            parse(text).unwrap(),
            serde_json::from_str::<Value>(text).unwrap()
        );
    }

    #[test]
    fn a_repeated_key_is_a_located_error() {
        let e = parse("{\"symbols\": {\"NR\": 4,\n \"NR\": 5}}").unwrap_err();
        assert!(
            e.to_string().contains("the key \"NR\" is given twice"),
            "{e}"
        );
        assert_eq!(e.line(), 2);
        // The same key in different objects is fine.
        assert!(parse(r#"{"a": {"x": 1}, "b": {"x": 2}}"#).is_ok());
    }
}
