//! Loops printed as functions of their own: a top-level node of the
//! generated function printed as the body of a `static` function that
//! takes the generated function's parameters, its runtime objects and its
//! scalar temporaries (copied in and out), and its temporary arrays, and
//! called where the node stood.
//!
//! Why: GCC allocates registers per function. A placing loop printed twice
//! in one function (looking ahead and plain, `lookahead_versions`) had its
//! plain copy spill four array pointers to the stack, reloaded on every
//! entry (COO → UCSR at scale 0.05: 0.65–0.72 of the hand-written C);
//! each copy in a function of its own keeps them in registers (0.86–0.88).
//! The objects are copied into locals of the function, so that their
//! fields stay in registers there too (an object whose address a loop's
//! function reads through stays in memory).

use std::fmt::Write as _;

use super::{declaration, param_decls, LNode, Method, Writer};
use crate::emit::Parameter;

/// What a function printed by [`Writer::outlined`] takes besides the
/// generated function's parameters.
pub(super) struct Frame {
    /// The generated function's parameters.
    pub(super) params: Vec<Parameter>,
    /// The runtime objects in use: name and C type (`spf_scatter`).
    pub(super) objects: Vec<(String, &'static str)>,
    /// The temporaries: name, element type and whether a scalar (an array
    /// is passed as its pointer).
    pub(super) temps: Vec<(String, &'static str, bool)>,
    /// Printed before each function (`SPF_KEEP_LOOPS `), and the lines
    /// around it (the scalar stores' pragmas), as for the generated one.
    pub(super) prefix: &'static str,
    pub(super) around: Option<(&'static str, &'static str)>,
}

impl Writer<'_, '_> {
    /// Prints `node` (top-level) as the body of a static function `name`,
    /// looking ahead with `ahead` (as `Writer::ahead`), into
    /// `self.functions`; returns the statement that calls it.
    pub(super) fn outlined(
        &mut self,
        name: &str,
        node: &LNode,
        ahead: Option<(usize, Method, Vec<String>)>,
    ) -> String {
        let frame = self.frame;
        let mut decls = param_decls(&frame.params, self.d.low.values);
        let mut args: Vec<String> = frame.params.iter().map(|p| p.name.clone()).collect();
        let mut copy_in = Vec::new();
        let mut copy_out = Vec::new();
        let io = |w: &mut Writer, name: &str| w.namer.fresh(&format!("{name}_io"));
        for (object, ty) in &frame.objects {
            let at = io(self, object);
            decls.push(format!("{ty} *{at}"));
            args.push(format!("&{object}"));
            copy_in.push(format!("{ty} {object} = *{at};"));
            copy_out.push(format!("*{at} = {object};"));
        }
        for (temp, ty, scalar) in &frame.temps {
            if *scalar {
                let at = io(self, temp);
                decls.push(format!("{ty} *{at}"));
                args.push(format!("&{temp}"));
                copy_in.push(format!("{ty} {temp} = *{at};"));
                copy_out.push(format!("*{at} = {temp};"));
            } else {
                decls.push(format!("{ty} *{temp}"));
                args.push(temp.clone());
                copy_in.push(format!("(void){temp};"));
            }
        }
        let mut sub = Writer {
            d: self.d,
            namer: self.namer.clone(),
            out: String::new(),
            depth: 1,
            sort_into: self.sort_into.clone(),
            counted: self.counted.clone(),
            ahead,
            loops: Vec::new(),
            gathers: Default::default(),
            frame,
            functions: Vec::new(),
        };
        // Parameters the node does not mention are unused there.
        let unused: Vec<String> = frame
            .params
            .iter()
            .map(|p| format!("(void){}", p.name))
            .collect();
        for chunk in unused.chunks(8) {
            sub.line(&format!("{};", chunk.join(", ")));
        }
        for line in &copy_in {
            sub.line(line);
        }
        sub.node(node, false);
        for line in &copy_out {
            sub.line(line);
        }
        let mut text = String::new();
        if let Some((begin, _)) = frame.around {
            let _ = writeln!(text, "{begin}");
        }
        // Out of line (GCC inlines a static function called once).
        let _ = writeln!(
            text,
            "{}{}\n{{\n{}}}",
            frame.prefix,
            declaration(&format!("SPF_OUT_OF_LINE static void {name}"), &decls),
            sub.out
        );
        if let Some((_, end)) = frame.around {
            let _ = writeln!(text, "{end}");
        }
        self.functions.append(&mut sub.functions);
        self.functions.push(text);
        format!("{name}({});", args.join(", "))
    }
}
