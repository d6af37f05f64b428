//! The field registry: every queryable field, declared once, as data.
//!
//! A field's declaration ([`FieldDef`]) holds its canonical name, aliases,
//! header unit, help text and getter. Validation, `--help-query-*`, the man
//! page and shell completion all read these tables; adding a field means
//! adding one entry.

pub mod time;

pub mod gpu;
pub mod smi_table;

pub mod accounted_apps;
pub mod compute_apps;
pub mod listing;
pub mod per_gpu;
pub mod procinfo;
pub mod remapped_rows;
pub mod retired_pages;
pub mod supported_clocks;

use crate::error::NvqError;
use crate::model::{FieldDef, FieldInfo};

/// The query modes, one per `--query-*` option.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QueryMode {
    Gpu,
    ComputeApps,
    AccountedApps,
    RetiredPages,
    RemappedRows,
    SupportedClocks,
}

impl QueryMode {
    pub const ALL: [QueryMode; 6] = [
        QueryMode::Gpu,
        QueryMode::SupportedClocks,
        QueryMode::ComputeApps,
        QueryMode::AccountedApps,
        QueryMode::RetiredPages,
        QueryMode::RemappedRows,
    ];

    /// The option's name without dashes: `query-gpu`.
    pub fn option(self) -> &'static str {
        match self {
            QueryMode::Gpu => "query-gpu",
            QueryMode::ComputeApps => "query-compute-apps",
            QueryMode::AccountedApps => "query-accounted-apps",
            QueryMode::RetiredPages => "query-retired-pages",
            QueryMode::RemappedRows => "query-remapped-rows",
            QueryMode::SupportedClocks => "query-supported-clocks",
        }
    }

    /// The fields of this mode, in help order.
    pub fn fields(self) -> Vec<&'static FieldInfo> {
        match self {
            QueryMode::Gpu => gpu::FIELDS.iter().map(|f| &f.info).collect(),
            QueryMode::ComputeApps => compute_apps::FIELDS.iter().map(|f| &f.info).collect(),
            QueryMode::AccountedApps => accounted_apps::FIELDS.iter().map(|f| &f.info).collect(),
            QueryMode::RetiredPages => retired_pages::FIELDS.iter().map(|f| &f.info).collect(),
            QueryMode::RemappedRows => remapped_rows::FIELDS.iter().map(|f| &f.info).collect(),
            QueryMode::SupportedClocks => {
                supported_clocks::FIELDS.iter().map(|f| &f.info).collect()
            }
        }
    }

    /// Find a field by canonical name or alias; returns its index in [`Self::fields`].
    pub fn lookup(self, token: &str) -> Option<usize> {
        fn pos<G>(defs: &'static [FieldDef<G>], token: &str) -> Option<usize> {
            defs.iter().position(|f| f.info.matches(token))
        }
        match self {
            QueryMode::Gpu => pos(gpu::FIELDS, token),
            QueryMode::ComputeApps => pos(compute_apps::FIELDS, token),
            QueryMode::AccountedApps => pos(accounted_apps::FIELDS, token),
            QueryMode::RetiredPages => pos(retired_pages::FIELDS, token),
            QueryMode::RemappedRows => pos(remapped_rows::FIELDS, token),
            QueryMode::SupportedClocks => pos(supported_clocks::FIELDS, token),
        }
    }

    /// Validate a comma-separated field list as a whole, before any NVML call.
    ///
    /// Rules (documented in the README): the list is split on `,` and each
    /// token is matched exactly, with no trimming, as nvidia-smi does;
    /// duplicates are kept and printed as often as they are asked for; an
    /// empty token (an empty list, a trailing or doubled comma) is an invalid
    /// field `""`. The first invalid token is reported.
    pub fn resolve(self, list: &str) -> Result<Vec<usize>, NvqError> {
        let tokens = list.split(',');
        // A long list (an all-fields query) looks names up in an index, a
        // short one scans the table.
        if list.len() < 256 {
            return tokens
                .map(|tok| {
                    self.lookup(tok)
                        .ok_or_else(|| NvqError::InvalidField(tok.to_string()))
                })
                .collect();
        }
        let mut index = std::collections::HashMap::new();
        for (i, f) in self.fields().into_iter().enumerate() {
            let renamed = f.renamed.map(|(_, old)| old);
            for name in std::iter::once(f.name)
                .chain(f.aliases.iter().copied())
                .chain(renamed)
            {
                index.entry(name).or_insert(i);
            }
        }
        tokens
            .map(|tok| {
                index
                    .get(tok)
                    .copied()
                    .ok_or_else(|| NvqError::InvalidField(tok.to_string()))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_and_aliases_are_unique_in_every_mode() {
        for mode in QueryMode::ALL {
            let mut seen = HashSet::new();
            for f in mode.fields() {
                assert!(seen.insert(f.name), "{mode:?}: duplicate name {}", f.name);
                for a in f.aliases {
                    assert!(seen.insert(a), "{mode:?}: duplicate alias {a}");
                }
            }
        }
    }

    #[test]
    fn every_field_has_help() {
        for mode in QueryMode::ALL {
            for f in mode.fields() {
                assert!(
                    !f.help.trim().is_empty(),
                    "{mode:?}: {} has no help",
                    f.name
                );
                assert!(!f.name.contains(' ') && !f.name.contains(','), "{}", f.name);
            }
        }
    }

    #[test]
    fn resolve_rejects_unknown_and_empty_tokens() {
        assert!(QueryMode::Gpu.resolve("index,name").is_ok());
        for bad in ["", "index,", "index,,name", " index", "nope"] {
            let err = QueryMode::Gpu.resolve(bad).unwrap_err();
            assert!(matches!(err, NvqError::InvalidField(_)), "{bad:?}");
        }
        let err = QueryMode::Gpu.resolve("index,bogus,alsobad").unwrap_err();
        assert_eq!(
            err.to_string(),
            "Field \"bogus\" is not a valid field to query.\n\n"
        );
    }
}
