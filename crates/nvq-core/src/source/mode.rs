//! The query modes, as a table. Each mode (`--query-gpu`, ...) is declared
//! once, as a [`ModeDef`] next to its collector; the command line
//! (`--query-X`, `--help-query-X`), the man page, completion, validation and
//! dispatch all read [`QueryMode::ALL`].

use super::mode_def::{ModeDef, Request};
use super::Target;
use crate::error::NvqError;
use crate::model::{FieldInfo, Row};
use crate::nvml::Session;

/// A query mode: a handle on its [`ModeDef`].
#[derive(Clone, Copy)]
pub struct QueryMode(&'static ModeDef);

impl PartialEq for QueryMode {
    fn eq(&self, other: &Self) -> bool {
        self.0.option == other.0.option
    }
}

impl Eq for QueryMode {}

impl std::fmt::Debug for QueryMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "--{}", self.0.option)
    }
}

impl std::hash::Hash for QueryMode {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.option.hash(state);
    }
}

impl QueryMode {
    /// `--query-gpu`.
    pub const GPU: QueryMode = QueryMode(&super::gpu::MODE);
    /// `--query-supported-clocks`.
    pub const SUPPORTED_CLOCKS: QueryMode = QueryMode(&super::supported_clocks::MODE);
    /// `--query-compute-apps`.
    pub const COMPUTE_APPS: QueryMode = QueryMode(&super::compute_apps::MODE);
    /// `--query-accounted-apps`.
    pub const ACCOUNTED_APPS: QueryMode = QueryMode(&super::accounted_apps::MODE);
    /// `--query-retired-pages`.
    pub const RETIRED_PAGES: QueryMode = QueryMode(&super::retired_pages::MODE);
    /// `--query-remapped-rows`.
    pub const REMAPPED_ROWS: QueryMode = QueryMode(&super::remapped_rows::MODE);

    /// Every mode, in the order `--help` and the man page list them.
    pub const ALL: [QueryMode; 6] = [
        Self::GPU,
        Self::SUPPORTED_CLOCKS,
        Self::COMPUTE_APPS,
        Self::ACCOUNTED_APPS,
        Self::RETIRED_PAGES,
        Self::REMAPPED_ROWS,
    ];

    /// The mode whose option (without dashes) is `option`.
    pub fn by_option(option: &str) -> Option<QueryMode> {
        Self::ALL.into_iter().find(|m| m.option() == option)
    }

    /// The mode's definition: option, help line, fields and collector.
    pub fn def(self) -> &'static ModeDef {
        self.0
    }

    /// The option's name without dashes: `query-gpu`.
    pub fn option(self) -> &'static str {
        self.0.option
    }

    /// The fields of this mode, in help order.
    pub fn fields(self) -> Vec<&'static FieldInfo> {
        (self.0.fields)()
    }

    /// One row per GPU?
    pub fn row_per_gpu(self) -> bool {
        self.0.row_per_gpu
    }

    /// One sample: the requested fields of the given GPUs.
    pub fn collect(self, session: &Session, targets: &[Target], req: &Request<'_>) -> Vec<Row> {
        (self.0.collect)(session, targets, req)
    }

    /// Find a field by canonical name or alias; returns its index in [`Self::fields`].
    pub fn lookup(self, token: &str) -> Option<usize> {
        self.fields().iter().position(|f| f.matches(token))
    }

    /// [`Self::resolve`] as nvidia-smi reads a list: nvq's own fields (the
    /// `extension` ones) are unknown fields there, as nvidia-smi has none.
    pub fn resolve_as_nvidia_smi(self, list: &str) -> Result<Vec<usize>, NvqError> {
        let fields = self.fields();
        let found = self.resolve(list)?;
        match found
            .iter()
            .zip(list.split(','))
            .find(|(&i, _)| fields.get(i).is_some_and(|f| f.extension))
        {
            Some((_, tok)) => Err(NvqError::InvalidField(tok.to_string(), None)),
            None => Ok(found),
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
        let fields = self.fields();
        let tokens = list.split(',');
        let invalid = |tok: &str| {
            let names = fields
                .iter()
                .flat_map(|f| std::iter::once(f.name).chain(f.aliases.iter().copied()));
            let near = crate::model::suggest::nearest(tok, names);
            NvqError::InvalidField(
                crate::model::suggest::clip(tok).into_owned(),
                crate::model::suggest::did_you_mean(&near),
            )
        };
        // A long list (an all-fields query) looks names up in an index, a
        // short one scans the table.
        if list.len() < 256 {
            return tokens
                .map(|tok| {
                    fields
                        .iter()
                        .position(|f| f.matches(tok))
                        .ok_or_else(|| invalid(tok))
                })
                .collect();
        }
        let mut index = std::collections::HashMap::new();
        for (i, f) in fields.iter().enumerate() {
            let renamed = f.renamed.map(|(_, old)| old);
            for name in std::iter::once(f.name)
                .chain(f.aliases.iter().copied())
                .chain(renamed)
            {
                index.entry(name).or_insert(i);
            }
        }
        tokens
            .map(|tok| index.get(tok).copied().ok_or_else(|| invalid(tok)))
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
        assert!(QueryMode::GPU.resolve("index,name").is_ok());
        for bad in ["", "index,", "index,,name", " index", "nope"] {
            let err = QueryMode::GPU.resolve(bad).unwrap_err();
            assert!(matches!(err, NvqError::InvalidField(..)), "{bad:?}");
        }
        let err = QueryMode::GPU.resolve("index,bogus,alsobad").unwrap_err();
        assert_eq!(
            err.to_string(),
            "Field \"bogus\" is not a valid field to query.\n\n"
        );
    }
}
