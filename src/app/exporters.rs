//! What each view that reads nodes lacks on a node that runs another
//! exporter (`hosts::exporter`): docs/guide.md's table, made from the
//! views' own field lists and the exporters' name tables.

use nvq_core::source::QueryMode;

/// The views that read nodes, each with the fields it asks a node for
/// (by the names it asks with), in the order of docs/guide.md's table.
pub fn views() -> Vec<(&'static str, Vec<(QueryMode, &'static str)>)> {
    use super::short::{SHORTS, WAIT_FIELDS};
    use crate::hosts::top;
    let list = |mode: QueryMode, fields: &'static str| {
        fields
            .split(',')
            .map(move |f| (mode, f))
            .collect::<Vec<_>>()
    };
    let mut views: Vec<(&'static str, Vec<(QueryMode, &'static str)>)> = SHORTS
        .iter()
        .map(|s| (s.name, list(s.mode, s.fields)))
        .collect();
    views.push(("wait", list(QueryMode::GPU, WAIT_FIELDS)));
    let mut stat = list(QueryMode::GPU, super::stat::GPU_FIELDS);
    stat.extend(list(QueryMode::COMPUTE_APPS, super::stat::PROC_FIELDS));
    views.push(("stat", stat));
    let (gpu, procs) = top::field_names();
    let mut screen: Vec<_> = gpu.into_iter().map(|f| (QueryMode::GPU, f)).collect();
    screen.extend(procs.into_iter().map(|f| (QueryMode::COMPUTE_APPS, f)));
    views.push(("top", screen));
    views
}

/// docs/guide.md's table of what each view lacks on a node that runs
/// another exporter, made from the views' fields and the exporters' name
/// tables (`hosts::exporter::Exporter::gives`); tests/hosts_exporters.rs
/// fails when the guide's table differs.
pub fn exporter_table() -> String {
    use crate::hosts::exporter::Exporter;
    let mut t = String::from("| view |");
    for e in Exporter::ALL {
        t.push_str(&format!(" {} lacks |", e.name()));
    }
    t.push_str("\n|---|");
    t.push_str(&"---|".repeat(Exporter::ALL.len()));
    t.push('\n');
    for (view, fields) in views() {
        t.push_str(&format!("| `nvq {view}` |"));
        for e in Exporter::ALL {
            let mut lacks: Vec<String> = Vec::new();
            if !e.lists_processes() && fields.iter().any(|(m, _)| *m == QueryMode::COMPUTE_APPS) {
                lacks.push("the process list".to_string());
            }
            for (mode, name) in &fields {
                let id = mode.lookup(name).and_then(|i| mode.ids().get(i).copied());
                let lacked = !id.is_some_and(|id| e.gives(*mode, id));
                if lacked && (*mode == QueryMode::GPU || e.lists_processes()) {
                    lacks.push(format!("`{name}`"));
                }
            }
            let cell = if lacks.is_empty() {
                "nothing".to_string()
            } else {
                lacks.join(", ")
            };
            t.push_str(&format!(" {cell} |"));
        }
        t.push('\n');
    }
    t
}
