//! The field registry: every queryable field, declared once, as data.
//!
//! A field's declaration ([`FieldDef`]) holds its canonical name, aliases,
//! header unit, help text and getter. Validation, `--help-query-*`, the man
//! page and shell completion all read these tables; adding a field means
//! adding one entry.

mod value;

pub mod help;
pub mod time;

pub mod gpu;
pub mod summary;

pub mod accounted_apps;
pub mod compute_apps;
pub mod devctx;
pub mod list;
pub mod procinfo;
pub mod remapped_rows;
pub mod retired_pages;
pub mod supported_clocks;

pub use value::{printable, Token, Value, NOT_FINITE};

use crate::error::NvqError;

/// A group of fields in `--help-query-*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section {
    pub name: &'static str,
    pub help: &'static str,
}

/// Everything about a field except how to read it.
#[derive(Debug, Clone, Copy)]
pub struct FieldInfo {
    /// Canonical name, printed in the CSV header.
    pub name: &'static str,
    /// Other accepted spellings (the header still shows `name`).
    pub aliases: &'static [&'static str],
    /// Unit shown in the header (`memory.used [MiB]`) and after numeric values.
    pub unit: Option<&'static str>,
    /// A `--help-query-*` section heading printed just before this field.
    pub heading: Option<Section>,
    /// nvq's own description of the field.
    pub help: &'static str,
    /// A field nvq adds; nvidia-smi does not know it.
    pub extension: bool,
    /// On drivers older than `.0`, nvidia-smi's canonical name was `.1`
    /// (the `clocks_throttle_reasons.*` spellings before 535).
    pub renamed: Option<(u32, &'static str)>,
}

impl FieldInfo {
    /// A plain field with no aliases, unit or section.
    pub const fn new(name: &'static str, help: &'static str) -> Self {
        FieldInfo {
            name,
            aliases: &[],
            unit: None,
            heading: None,
            help,
            extension: false,
            renamed: None,
        }
    }

    pub const fn aliases(mut self, aliases: &'static [&'static str]) -> Self {
        self.aliases = aliases;
        self
    }

    pub const fn unit(mut self, unit: &'static str) -> Self {
        self.unit = Some(unit);
        self
    }

    /// Print the section heading `Section about NAME properties` (and the
    /// section's description) before this field in `--help-query-*`.
    pub const fn heading(mut self, name: &'static str, help: &'static str) -> Self {
        self.heading = Some(Section { name, help });
        self
    }

    pub const fn extension(mut self) -> Self {
        self.extension = true;
        self
    }

    pub const fn renamed(mut self, before_driver: u32, old_name: &'static str) -> Self {
        self.renamed = Some((before_driver, old_name));
        self
    }

    /// Does `token` name this field (canonical name or alias)?
    pub fn matches(&self, token: &str) -> bool {
        self.name == token
            || self.aliases.contains(&token)
            || self.renamed.is_some_and(|(_, old)| old == token)
    }

    /// The name nvidia-smi of the given driver major version prints in the header.
    pub fn header_name(&self, driver_major: u32) -> &'static str {
        match self.renamed {
            Some((before, old)) if driver_major > 0 && driver_major < before => old,
            _ => self.name,
        }
    }

    /// The full CSV header cell: `name [unit]`.
    pub fn header(&self, driver_major: u32) -> String {
        let name = self.header_name(driver_major);
        match self.unit {
            Some(u) => format!("{name} [{u}]"),
            None => name.to_string(),
        }
    }
}

/// A field: its description plus the function that reads it.
pub struct FieldDef<G> {
    pub info: FieldInfo,
    pub get: G,
}

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
