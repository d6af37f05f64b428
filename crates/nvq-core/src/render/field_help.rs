//! `--help-query-*`: nvidia-smi's layout, nvq's words.
//!
//! Exporters (nvidia_gpu_exporter, netdata) discover fields by parsing this
//! layout: a title line, then for each field a line `"name" or "alias"`, its
//! description on the next line, and an empty line; section headings read
//! `Section about NAME properties` followed by the section's description.

use crate::model::FieldInfo;

/// The full `--help-query-*` text for the option `--{option}` and its fields.
pub fn render(option: &str, fields: &[&FieldInfo]) -> String {
    let mut out = format!("List of valid properties to query for the switch \"--{option}\":\n\n");
    for f in fields {
        if let Some(s) = f.heading {
            out.push_str(&format!(
                "Section about {} properties\n{}\n\n",
                s.name, s.help
            ));
        }
        out.push('"');
        out.push_str(f.name);
        out.push('"');
        for a in f.aliases {
            out.push_str(" or \"");
            out.push_str(a);
            out.push('"');
        }
        out.push('\n');
        out.push_str(f.help);
        if f.extension {
            out.push_str(" (nvq extension; nvidia-smi does not have this field.)");
        }
        out.push_str("\n\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout() {
        let fields = [
            FieldInfo::new("timestamp", "When."),
            FieldInfo::new("name", "What.").aliases(&["gpu_name"]),
        ];
        let text = render("query-gpu", &fields.iter().collect::<Vec<_>>());
        assert!(text.starts_with(
            "List of valid properties to query for the switch \"--query-gpu\":\n\n\"timestamp\"\n"
        ));
        assert!(text.contains("\"name\" or \"gpu_name\"\n"));
        assert!(text.ends_with("\n\n"));
    }
}
