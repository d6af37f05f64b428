//! `--query-retired-pages`: device-memory pages the GPU has retired.
//!
//! As nvidia-smi does, every GPU gets rows for both causes, single-bit ECC
//! first, then double-bit ECC. A cause with no retired pages gives one row
//! whose address and timestamp are `[N/A]` (that is all the captures ever
//! show). A cause with pages gives one row per page (nvq's decision, since no
//! capture shows retired pages): the address as `0x` and 16 upper-case hex
//! digits, the timestamp as NVML's raw number (NVML does not document its
//! unit). When NVML cannot list the pages, the row carries its error token
//! (`[N/A]` for a GPU without ECC).

use super::list_mode::{field, gpu_columns, list_mode_def, ListGpu, ListMode};
use super::mode_def::ModeDef;
use crate::model::{FieldInfo, ListField, NvmlCode, Value};
use nvml_wrapper::enum_wrappers::device::RetirementCause;

/// The causes in nvidia-smi's order, with the text it prints for each.
pub const CAUSES: [(RetirementCause, &str); 2] = [
    (
        RetirementCause::MultipleSingleBitEccErrors,
        "Single Bit ECC",
    ),
    (RetirementCause::DoubleBitEccError, "Double Bit ECC"),
];

/// One retired page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// The page's device-memory address, as NVML lists it.
    pub address: u64,
    /// When the page was retired: NVML's raw number, unit undocumented by NVML.
    pub timestamp: u64,
}

/// One row: a cause and one page (`Ok(None)`: no page to report).
pub struct PageRow {
    /// The retirement cause as nvidia-smi prints it (the text of [`CAUSES`]).
    pub cause: &'static str,
    /// The page, `Ok(None)` when the cause has none, or the NVML code the query failed with.
    pub page: Result<Option<Page>, NvmlCode>,
}

impl PageRow {
    fn with(&self, gpu: &ListGpu<'_>, f: impl FnOnce(&Page) -> Value) -> Value {
        match &self.page {
            Ok(Some(p)) => f(p),
            Ok(None) => gpu.na(),
            Err(c) => gpu.err(*c),
        }
    }
}

/// `0x` and 16 upper-case hex digits.
pub fn format_address(a: u64) -> String {
    format!("0x{a:016X}")
}

/// The `--query-retired-pages` mode: rows for both causes per GPU.
pub const MODE: ModeDef = list_mode_def!(
    "query-retired-pages",
    "List retired device-memory pages",
    LIST
);

static LIST: ListMode<PageRow> = ListMode {
    gpu: gpu_columns(None),
    fields: &[
        field(
            ListField::RetiredPagesAddress.id(),
            FieldInfo::new(
                ListField::RetiredPagesAddress.name(),
                "Address of the retired page, as 0x and 16 hex digits; it can differ depending on whether \
                 ECC is on. [N/A] when no page was retired for this cause.",
            ),
            |g, r| r.with(g, |p| Value::text(format_address(p.address))),
        ),
        field(
            ListField::RetiredPagesTimestamp.id(),
            FieldInfo::new(
                ListField::RetiredPagesTimestamp.name(),
                "When the page was retired, as the raw number the driver reports. [N/A] when no page was \
                 retired for this cause.",
            ),
            |g, r| r.with(g, |p| i64::try_from(p.timestamp).map_or_else(|_| g.na(), Value::Int)),
        ),
        field(
            ListField::RetiredPagesCause.id(),
            FieldInfo::new(
                ListField::RetiredPagesCause.name(),
                "Why the page was retired; every GPU lists both causes:\n - Single Bit ECC - the page had \
                 repeated correctable single-bit ECC errors.\n - Double Bit ECC - the page had an \
                 uncorrectable double-bit ECC error.",
            ),
            |_, r| Value::text(r.cause),
        ),
    ],
    items: pages,
    unsupported_is_empty: false,
    labels: |r| {
        let mut l = vec![("cause", r.cause.to_lowercase().replace(' ', "_"))];
        if let Ok(Some(p)) = &r.page {
            l.push(("address", format_address(p.address)));
        }
        l
    },
};

/// Both causes' pages of one GPU: a row per page, or one row per cause
/// without pages (or whose list failed).
fn pages(gpu: &ListGpu<'_>) -> Result<Vec<PageRow>, NvmlCode> {
    let mut rows = Vec::new();
    for (cause, text) in CAUSES {
        match gpu.gpu.retired_pages(cause) {
            Ok([]) => rows.push(PageRow {
                cause: text,
                page: Ok(None),
            }),
            Ok(p) => rows.extend(p.iter().map(|p| PageRow {
                cause: text,
                page: Ok(Some(Page {
                    address: p.address,
                    timestamp: p.timestamp,
                })),
            })),
            Err(c) => rows.push(PageRow {
                cause: text,
                page: Err(c),
            }),
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_shape() {
        assert_eq!(format_address(0x1234_abcd), "0x000000001234ABCD");
    }
}
