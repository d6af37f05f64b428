//! `nvq stat`: one line per GPU with its processes, the way gpustat shows
//! a machine: `[0] NAME | 54°C,  87 % | 20480 / 81559 MiB | user:name/pid(16384M) ...`.

use super::printable;
use crate::model::{Row, Value};

/// The mark after a memory figure that is the system's memory (a
/// unified-memory GPU), and the line that says so under the GPUs.
pub const DERIVED_MARK: char = '*';
/// The footnote of [`DERIVED_MARK`].
pub const DERIVED_NOTE: &str = "* the system's memory, which the GPU shares (unified memory): \
     used MemTotal - MemAvailable of MemTotal, from /proc/meminfo";

/// Is the GPU's memory the system's (its `memory.derived` cell, the 7th)?
fn derived(g: &Row) -> bool {
    matches!(g.cells.get(6), Some(Value::Text(t)) if t == "Yes")
}

/// A GPU's line: its cells, in `app::stat`'s order (index, name,
/// temperature, utilization, memory used, memory total, memory derived),
/// and its processes' rows (GPU index, PID, user, memory used, process
/// name). A derived memory figure is marked, with a footnote.
pub fn render(gpus: &[Row], procs: &[Row]) -> String {
    let mut out = lines(gpus, procs);
    if gpus.iter().any(derived) {
        out.push_str(DERIVED_NOTE);
        out.push('\n');
    }
    out
}

/// [`render`]'s lines without the footnote.
fn lines(gpus: &[Row], procs: &[Row]) -> String {
    let cell = |r: &Row, i: usize| r.cells.get(i).map(Value::to_string).unwrap_or_default();
    let any_derived = gpus.iter().any(derived);
    let name_width = gpus
        .iter()
        .map(|g| printable(&cell(g, 1)).chars().count())
        .max()
        .unwrap_or(0);
    let mem_width = gpus.iter().map(|g| cell(g, 5).len()).max().unwrap_or(0);
    let mut out = String::new();
    for g in gpus {
        let index = cell(g, 0);
        let mark = match (derived(g), any_derived) {
            (true, _) => "*",
            (false, true) => " ",
            (false, false) => "",
        };
        out.push_str(&format!(
            "[{index}] {:<name_width$} | {:>3}°C, {:>3} % | {:>mem_width$} / {:>mem_width$} MiB{mark} |",
            printable(&cell(g, 1)),
            cell(g, 2),
            cell(g, 3),
            cell(g, 4),
            cell(g, 5),
        ));
        for p in procs.iter().filter(|p| cell(p, 0) == index) {
            let user = match p.cells.get(2) {
                Some(Value::Text(u)) => printable(u).into_owned(),
                _ => "?".to_string(),
            };
            out.push_str(&format!(
                " {user}:{}/{}({}M)",
                printable(&cell(p, 4)),
                cell(p, 1),
                cell(p, 3)
            ));
        }
        out.push('\n');
    }
    out
}

/// `nvq stat --hosts`: each node's lines as [`render`] makes them, grouped
/// by node in the order given, each line starting with its node's name
/// (padded to the longest, made printable).
pub fn render_hosts(nodes: &[(&str, Vec<Row>, Vec<Row>)]) -> String {
    let names: Vec<String> = nodes
        .iter()
        .map(|(h, _, _)| printable(h).into_owned())
        .collect();
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for (name, (_, gpus, procs)) in names.iter().zip(nodes) {
        for line in lines(gpus, procs).lines() {
            out.push_str(&format!("{name:<width$}  {line}\n"));
        }
    }
    if nodes.iter().any(|(_, gpus, _)| gpus.iter().any(derived)) {
        out.push_str(DERIVED_NOTE);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: Vec<Value>) -> Row {
        Row::new(cells)
    }

    #[test]
    fn one_line_per_gpu_with_its_processes() {
        let gpus = vec![
            row(vec![
                Value::Int(0),
                Value::text("GPU A"),
                Value::Int(54),
                Value::Int(87),
                Value::Bytes(20 << 30),
                Value::Bytes(80 << 30),
            ]),
            row(vec![
                Value::Int(1),
                Value::text("GPU\nB"),
                Value::Int(40),
                Value::Int(0),
                Value::Bytes(0),
                Value::Bytes(80 << 30),
            ]),
        ];
        let procs = vec![row(vec![
            Value::Int(0),
            Value::Int(42),
            Value::text("ann"),
            Value::Bytes(1 << 30),
            Value::text("python3"),
        ])];
        let text = render(&gpus, &procs);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert_eq!(
            lines[0],
            "[0] GPU A |  54°C,  87 % | 20480 / 81920 MiB | ann:python3/42(1024M)"
        );
        assert_eq!(lines[1], "[1] GPU?B |  40°C,   0 % |     0 / 81920 MiB |");
    }

    #[test]
    fn the_systems_memory_is_marked_with_a_footnote() {
        let gpu = |i, used: u64, derived: &str| {
            row(vec![
                Value::Int(i),
                Value::text("GB10"),
                Value::Int(36),
                Value::Int(0),
                Value::Bytes(used << 20),
                Value::Bytes(124_610 << 20),
                Value::text(derived),
            ])
        };
        let text = render(&[gpu(0, 8822, "Yes"), gpu(1, 0, "No")], &[]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "[0] GB10 |  36°C,   0 % |   8822 / 124610 MiB* |",
                "[1] GB10 |  36°C,   0 % |      0 / 124610 MiB  |",
                DERIVED_NOTE,
            ],
            "{text}"
        );
        let hosts = render_hosts(&[("a", vec![gpu(0, 1, "Yes")], vec![])]);
        assert_eq!(hosts.lines().last(), Some(DERIVED_NOTE), "{hosts}");
        assert_eq!(hosts.lines().count(), 2, "{hosts}");
    }
}
