//! A synthesized conversion and running it: the computation, the names it
//! binds, and [`Synthesized::run`], which executes it in codegen's
//! interpreter on an [`Instance`] of the source format and returns the
//! destination's instance.
//!
//! [`crate::synthesize`] makes one; [`crate::validate`] runs it on test
//! tensors before it is handed out.

use std::collections::BTreeMap;

use codegen::ast::LoopProgram;
use codegen::interp::{Array, Memory, RunError};
use codegen::scan::ScanError;
use codegen::width::{IndexWidth, IndexWidths, Widths};
use codegen::ValueType;
use iegen::computation::Computation;
use iegen::UfEnvironment;

use crate::conversion::Conversion;
use crate::instance::{Instance, Values};
use crate::plan::Plan;

/// Which format of a conversion a name belongs to.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Side {
    /// The format converted from: its symbols and arrays are inputs.
    Source,
    /// The format converted to: its arrays and unknown sizes are outputs.
    Destination,
}

/// What a descriptor name stands for in the computation.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum BindingKind {
    /// A source symbol (a computation symbol, passed by value) or a
    /// destination size the computation computes (an `out int` scalar).
    Symbol,
    /// An index array (an `int` data space).
    IndexArray,
    /// The value array (a `real` data space).
    Values,
}

/// One name of a descriptor and the computation's name for it (destination
/// names are renamed apart: CSR's `col` is `col_out` in COO → CSR).
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Binding {
    /// The format it belongs to.
    pub side: Side,
    /// The name as the descriptor declares it (and JSON instances use).
    pub name: String,
    /// The name of the computation's symbol or data space.
    pub ir_name: String,
    /// What it is.
    pub kind: BindingKind,
}

/// A synthesized conversion.
#[derive(Clone, Debug)]
pub struct Synthesized {
    /// The composed formats, destination renamed apart.
    pub conversion: Conversion,
    /// The chosen plan.
    pub plan: Plan,
    /// The inspector and copy: symbols are the source's symbols, `in` data
    /// spaces the source's arrays, `out` data spaces the destination's
    /// arrays and computed sizes.
    pub computation: Computation,
    /// Every source symbol and array and every destination array and
    /// unknown size, with its name in the computation.
    pub bindings: Vec<Binding>,
}

/// Why running a synthesized conversion failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ExecError {
    /// The instance lacks a symbol or an array, or has the wrong type.
    #[error("the {format} instance has no {what} `{name}`")]
    Missing {
        /// The source format.
        format: String,
        /// "symbol" or "array".
        what: &'static str,
        /// The descriptor's name.
        name: String,
    },
    /// Scanning the computation failed (a bug in synthesis).
    #[error("scanning the synthesized computation: {0}")]
    Scan(String),
    /// The interpreter stopped.
    #[error("running the conversion: {0}")]
    Run(#[from] RunError),
    /// The outputs cannot be sized or allocated for this input.
    #[error("allocating the outputs: {0}")]
    Alloc(#[from] codegen::interp::AllocError),
}

impl Synthesized {
    /// The facts the scanner may use: the source's UF domains, ranges,
    /// monotonicity and rules (the destination's are what is computed).
    pub fn env(&self) -> UfEnvironment {
        self.conversion.src.env()
    }

    /// The computation scanned into loops.
    pub fn program(&self) -> Result<LoopProgram, ScanError> {
        codegen::scan::scan(&self.computation, &self.env())
    }

    /// The binding of a descriptor name on one side.
    pub fn binding(&self, side: Side, name: &str) -> Option<&Binding> {
        self.bindings
            .iter()
            .find(|b| b.side == side && b.name == name)
    }

    /// Converts `input` (an instance of the source format, already
    /// validated) in codegen's interpreter and returns the destination's
    /// instance, named as the destination descriptor names it.
    pub fn run(&self, input: &Instance) -> Result<Instance, ExecError> {
        let program = self.program().map_err(|e| ExecError::Scan(e.to_string()))?;
        self.run_program(&program, input)
    }

    /// The interpreter's memory for converting `input`: the source's
    /// symbols and arrays under their computation names, and every `out`
    /// space of a fixed size zero-filled (the dynamically sized ones are
    /// allocated by the run). The arrays are clones of the input's (of
    /// their owner, for shared ones; copies of the others).
    pub fn memory(&self, program: &LoopProgram, input: &Instance) -> Result<Memory, ExecError> {
        self.fill_memory(program, &input.symbols, input.value_type, |name| {
            input.arrays.get(name).cloned()
        })
    }

    /// [`Synthesized::memory`], the source's arrays moved out of `input`
    /// instead of copied (its symbols stay, for [`Synthesized::output`]).
    pub fn memory_taking(
        &self,
        program: &LoopProgram,
        input: &mut Instance,
    ) -> Result<Memory, ExecError> {
        let arrays = &mut input.arrays;
        self.fill_memory(program, &input.symbols, input.value_type, |name| {
            arrays.remove(name)
        })
    }

    /// The memory of a run on the source's `symbols` and the arrays `array`
    /// gives by name.
    fn fill_memory(
        &self,
        program: &LoopProgram,
        symbols: &BTreeMap<String, i64>,
        values: ValueType,
        mut array: impl FnMut(&str) -> Option<Values>,
    ) -> Result<Memory, ExecError> {
        let src = &self.conversion.src;
        let mut memory = Memory::new();
        for b in self.bindings.iter().filter(|b| b.side == Side::Source) {
            let missing = |what| ExecError::Missing {
                format: src.name.clone(),
                what,
                name: b.name.clone(),
            };
            match b.kind {
                BindingKind::Symbol => {
                    let v = symbols.get(&b.name).ok_or_else(|| missing("symbol"))?;
                    memory.symbols.insert(b.ir_name.clone(), *v);
                }
                BindingKind::IndexArray | BindingKind::Values => {
                    let v = array(&b.name).ok_or_else(|| missing("array"))?;
                    let array = match (b.kind, v) {
                        // At the instance's value type.
                        (BindingKind::Values, v) => v.into_value_array(values),
                        (_, Values::Int(v)) => Array::Int(v),
                        (_, Values::Int32(v)) => {
                            Array::Int(v.iter().map(|&x| i64::from(x)).collect())
                        }
                        (_, Values::Real(_) | Values::Real32(_)) => {
                            return Err(missing("integer array"))
                        }
                    };
                    memory.arrays.insert(b.ir_name.clone(), array);
                }
            }
        }
        codegen::interp::allocate_outputs(&program.computation, &mut memory)?;
        Ok(memory)
    }

    /// [`Synthesized::run`] with the program already scanned.
    pub fn run_program(
        &self,
        program: &LoopProgram,
        input: &Instance,
    ) -> Result<Instance, ExecError> {
        self.run_program_at(program, input, IndexWidths::uniform(IndexWidth::W64))
    }

    /// The width of each index array the conversion takes and returns
    /// ([`Widths`], by data-space name) when positions and coordinates
    /// are stored at `widths` (each array's kind from its descriptor,
    /// [`crate::Descriptor::index_kind`]).
    pub fn widths(&self, widths: IndexWidths) -> Widths {
        let conv = &self.conversion;
        self.bindings
            .iter()
            .filter(|b| b.kind == BindingKind::IndexArray)
            .fold(Widths::uniform(widths.narrowest()), |w, b| {
                let d = match b.side {
                    Side::Source => &conv.src,
                    Side::Destination => &conv.dst_given,
                };
                w.with(b.ir_name.clone(), widths.of(d.index_kind(&b.name)))
            })
    }

    /// [`Synthesized::run_program`] with the index arrays at `widths`
    /// ([`codegen::interp::run_at`]: a size or value that does not fit is
    /// an error). The input's arrays are read in place (a 32-bit index
    /// array is widened, the interpreter computing at 64 bits); the
    /// result owns its arrays.
    ///
    /// # Errors
    ///
    /// As [`Synthesized::run_program`].
    pub fn run_program_at(
        &self,
        program: &LoopProgram,
        input: &Instance,
        widths: IndexWidths,
    ) -> Result<Instance, ExecError> {
        // SAFETY: the view, and the memory its arrays move into, are
        // dropped before this returns, and the result is detached (an
        // array moved from the input to the output would borrow it).
        let mut view = unsafe { input.borrowed() };
        let mut memory = self.memory_taking(program, &mut view)?;
        codegen::interp::run_at(program, &mut memory, None, &self.widths(widths))?;
        let mut out = self.output(&mut memory, input);
        out.own();
        Ok(out)
    }

    /// The destination's instance in `memory` after a run on `input` (by
    /// the interpreter or by compiled code), named as the destination
    /// descriptor names it; its arrays are moved out of `memory`.
    pub fn output(&self, memory: &mut Memory, input: &Instance) -> Instance {
        let src = &self.conversion.src;
        let dst = &self.conversion.dst;
        let mut out = Instance {
            format: dst.name.clone(),
            symbols: BTreeMap::new(),
            arrays: BTreeMap::new(),
            index_width: None,
            value_type: input.value_type,
        };
        // Dense extents are shared: the destination's take the source's values.
        for (d, s) in dst.dense.iter().zip(&src.dense) {
            if let Some(v) = input.symbols.get(s) {
                out.symbols.insert(d.clone(), *v);
            }
        }
        for b in self.bindings.iter().filter(|b| b.side == Side::Destination) {
            let Some(array) = memory.arrays.remove(&b.ir_name) else {
                continue;
            };
            match (b.kind, array) {
                (BindingKind::Symbol, Array::Int(v)) => {
                    out.symbols
                        .insert(b.name.clone(), v.first().copied().unwrap_or(0));
                }
                (_, Array::Int(v)) => {
                    out.arrays.insert(b.name.clone(), Values::Int(v));
                }
                (_, array) => {
                    if let Some(v) = Values::from_value_array(array) {
                        out.arrays.insert(b.name.clone(), v);
                    }
                }
            }
        }
        out
    }
}
