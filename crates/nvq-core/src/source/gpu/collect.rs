//! Turning the registry into rows: one row per GPU.

use super::{unsupported, FIELDS};
use crate::model::{Fact, Row};
use crate::nvml::Session;
use crate::source::mode_def::Request;
use crate::source::Target;

/// Read the requested fields (indices into [`FIELDS`]) for each GPU, also
/// filling [`Row::gpu`] when the request asks for identities (formats that
/// label rows by GPU do). A request with `memory.derived` derives a
/// unified-memory GPU's memory from the system's: the values never go
/// without their mark.
pub fn collect(session: &Session, targets: &[Target], req: &Request<'_>) -> Vec<Row> {
    // All field-value fields of a row are fetched in one NVML call first.
    let field_values: Vec<(u32, u32)> = req
        .fields
        .iter()
        .filter_map(|&f| FIELDS.get(f).and_then(|d| d.get.field_value()))
        .collect();
    let derive = req.fields.contains(&(Fact::MemoryDerived as usize));
    targets
        .iter()
        .map(|t| {
            let mut ctx = t.context(session, req.count);
            if derive {
                ctx = ctx.deriving_memory();
            }
            // Who the GPU is, before its values: a GPU that fails midway
            // keeps the labels it had.
            let gpu = req.ident.then(|| t.ident(&ctx));
            if !field_values.is_empty() {
                ctx.prefetch_field_values(&field_values);
            }
            let mut cells = Vec::with_capacity(req.fields.len() + req.spare);
            cells.extend(req.fields.iter().map(|&f| {
                FIELDS
                    .get(f)
                    .map_or_else(unsupported, |def| def.get.read(&ctx))
            }));
            let mut row = Row::new(cells);
            row.gpu = gpu;
            row.time = Some(ctx.taken);
            row.timestamp = Some(ctx.timestamp().to_string());
            row
        })
        .collect()
}
