//! What nvq knows about a field, apart from how to read it.

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
