//! What a query mode is: its [`ModeDef`] (option, help line, fields,
//! collector) and what its collector is asked for. Each mode's file declares
//! one; the table of modes is [`super::mode`].

use super::target::Target;
use crate::model::{ColumnId, FieldInfo, Row};
use crate::nvml::Session;

/// What a collector is asked for, in one sample.
pub struct Request<'a> {
    /// The fields to read: indices into the mode's fields.
    pub fields: &'a [usize],
    /// The number of GPUs NVML reports (the `count` field).
    pub count: u32,
    /// Fill [`Row::gpu`] (formats that label rows by GPU need it).
    pub ident: bool,
    /// Room to leave in each row's cells after the fields, for the cells a caller appends (the scripting
    /// language's `rate()` and `time_to_full()`), so that appending them does not move the row; 0 for none.
    pub spare: usize,
}

impl<'a> Request<'a> {
    /// A request of `fields` among `count` GPUs, with identities when `ident`, leaving no room after the cells.
    pub fn new(fields: &'a [usize], count: u32, ident: bool) -> Self {
        Request {
            fields,
            count,
            ident,
            spare: 0,
        }
    }
}

/// One sample of a mode: the rows of the given GPUs.
pub type Collect = fn(&Session, &[Target], &Request<'_>) -> Vec<Row>;

/// A query mode.
pub struct ModeDef {
    /// The option without dashes: `query-gpu`. `--help-` + it lists the fields.
    pub option: &'static str,
    /// One line for `--help` (and the man page).
    pub about: &'static str,
    /// Every field, in `--help-query-*` order.
    pub fields: fn() -> Vec<&'static FieldInfo>,
    /// Every field's id, in the order of `fields`.
    pub ids: fn() -> Vec<ColumnId>,
    /// The collector: reads the mode's rows for the selected GPUs on each sample.
    pub collect: Collect,
    /// One row per GPU (`--summary` summarises by GPU; `--until-all` counts GPUs).
    pub row_per_gpu: bool,
}
