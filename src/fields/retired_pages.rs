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

use super::devctx::{self, info, DevCtx};
use super::{FieldDef, FieldInfo, Value};
use crate::format::Row;
use crate::nvml::{NvmlCode, Session};
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
    pub address: u64,
    pub timestamp: u64,
}

/// One row: a GPU, a cause and one page (`Ok(None)`: no page to report).
pub struct PageRow<'a> {
    pub dev: &'a DevCtx<'a>,
    pub cause: &'static str,
    pub page: Result<Option<Page>, NvmlCode>,
}

impl devctx::RowKey for PageRow<'_> {
    fn labels(&self) -> Vec<(&'static str, String)> {
        let mut l = vec![("cause", self.cause.to_lowercase().replace(' ', "_"))];
        if let Ok(Some(p)) = &self.page {
            l.push(("address", format_address(p.address)));
        }
        l
    }
}

impl PageRow<'_> {
    fn with(&self, f: impl FnOnce(&Page) -> Value) -> Value {
        match &self.page {
            Ok(Some(p)) => f(p),
            Ok(None) => self.dev.na(),
            Err(c) => self.dev.err(*c),
        }
    }
}

/// `0x` and 16 upper-case hex digits.
pub fn format_address(a: u64) -> String {
    format!("0x{a:016X}")
}

pub type Getter = for<'a, 'b> fn(&'a PageRow<'b>) -> Value;

const fn f(info: FieldInfo, get: Getter) -> FieldDef<Getter> {
    FieldDef { info, get }
}

/// Every `--query-retired-pages` field, in help order.
pub static FIELDS: &[FieldDef<Getter>] = &[
    f(info::TIMESTAMP, |r| r.dev.timestamp()),
    f(info::GPU_NAME, |r| r.dev.name()),
    f(info::GPU_BUS_ID, |r| r.dev.bus_id()),
    f(info::GPU_SERIAL, |r| r.dev.serial()),
    f(info::GPU_UUID, |r| r.dev.uuid()),
    f(
        FieldInfo::new(
            "retired_pages.address",
            "Address of the retired page, as 0x and 16 hex digits; it can differ depending on whether ECC is on. [N/A] when no page was retired for this cause.",
        ),
        |r| r.with(|p| Value::text(format_address(p.address))),
    ),
    f(
        FieldInfo::new(
            "retired_pages.timestamp",
            "When the page was retired, as the raw number the driver reports. [N/A] when no page was retired for this cause.",
        ),
        |r| r.with(|p| i64::try_from(p.timestamp).map_or_else(|_| r.dev.na(), Value::Int)),
    ),
    f(
        FieldInfo::new(
            "retired_pages.cause",
            "Why the page was retired; every GPU lists both causes:\n - Single Bit ECC - the page had repeated correctable single-bit ECC errors.\n - Double Bit ECC - the page had an uncorrectable double-bit ECC error.",
        ),
        |r| Value::text(r.cause),
    ),
];

/// Read the given fields for both causes of every selected GPU.
pub fn collect(session: &Session, devices: &[u32], fields: &[usize]) -> Vec<Row> {
    let get = |r: &PageRow<'_>, f: usize| FIELDS.get(f).map(|d| (d.get)(r));
    let mut rows = Vec::new();
    for &i in devices {
        let dev = DevCtx::new(session, i);
        for (cause, text) in CAUSES {
            let pages = dev.gpu.call(|d| d.retired_pages(cause));
            let mut push = |page| {
                let r = PageRow {
                    dev: &dev,
                    cause: text,
                    page,
                };
                rows.push(devctx::row(&dev, &r, fields, get));
            };
            match pages {
                Ok(p) if p.is_empty() => push(Ok(None)),
                Ok(p) => p.into_iter().for_each(|p| {
                    push(Ok(Some(Page {
                        address: p.address,
                        timestamp: p.timestamp,
                    })))
                }),
                Err(c) => push(Err(c)),
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_shape() {
        assert_eq!(format_address(0x1234_abcd), "0x000000001234ABCD");
    }
}
