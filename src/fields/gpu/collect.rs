//! Turning the registry into rows.

use super::{unsupported, GpuCtx, FIELDS};

/// Read the given fields (indices into [`FIELDS`]) for each selected GPU.
/// All field-value fields of a row are fetched in one NVML call first.
pub fn collect(
    session: &crate::nvml::Session,
    devices: &[u32],
    count: u32,
    fields: &[usize],
) -> Vec<crate::format::Row> {
    let field_values: Vec<(u32, u32)> = fields
        .iter()
        .filter_map(|&f| FIELDS.get(f).and_then(|d| d.get.field_value()))
        .collect();
    devices
        .iter()
        .map(|&i| {
            let ctx = GpuCtx::new(session, i, count);
            if !field_values.is_empty() {
                ctx.prefetch_field_values(&field_values);
            }
            let cells = fields
                .iter()
                .map(|&f| {
                    FIELDS
                        .get(f)
                        .map_or_else(unsupported, |def| def.get.read(&ctx))
                })
                .collect();
            crate::format::Row::new(cells)
        })
        .collect()
}
