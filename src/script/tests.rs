//! Tests of the expression language against the `--query-gpu` registry.

use super::*;
use nvq_core::model::NvmlCode;
use nvq_core::source::gpu::FIELDS;
use proptest::prelude::*;

const MIB: u64 = 1 << 20;

fn gpu(src: &str) -> Result<Expr, ExprError> {
    let infos = QueryMode::GPU.fields();
    Expr::compile_with("--where", src, &infos, &|n| QueryMode::GPU.lookup(n))
}

fn idx(name: &str) -> usize {
    QueryMode::GPU.lookup(name).unwrap()
}

/// A row of named cells, and the read list it corresponds to.
fn row(cells: &[(&str, Value)]) -> (Vec<usize>, Vec<Value>) {
    (
        cells.iter().map(|(n, _)| idx(n)).collect(),
        cells.iter().map(|(_, v)| v.clone()).collect(),
    )
}

fn eval(src: &str, cells: &[(&str, Value)]) -> Tri {
    let mut e = gpu(src).unwrap_or_else(|e| panic!("{src}: {}", e.render("--where", src)));
    let (read, cells) = row(cells);
    e.bind(&read);
    e.eval(&cells)
}

/// Each expression of `cases` on the row `cells` gives its answer.
fn check(cells: &[(&str, Value)], cases: &[(&str, Tri)]) {
    for &(src, want) in cases {
        assert_eq!(eval(src, cells), want, "{src}");
    }
}

fn h100() -> Vec<(&'static str, Value)> {
    vec![
        ("index", Value::Int(0)),
        ("name", Value::text("NVIDIA H100 80GB HBM3")),
        ("memory.total", Value::Bytes(81_559 * MIB)),
        ("memory.used", Value::Bytes(60_000 * MIB)),
        ("memory.free", Value::Bytes(21_000 * MIB)),
        ("utilization.gpu", Value::Int(5)),
        ("temperature.gpu", Value::Int(54)),
        ("power.draw", Value::watts_from_mw(412_345)),
        ("driver_version", Value::text("580.82.07")),
        ("count", Value::Int(2)),
    ]
}

#[test]
fn units_convert_to_the_field_unit() {
    let r = h100();
    check(
        &r,
        &[
            ("memory.free >= 20GiB", Tri::True),
            ("memory.free >= 21GiB", Tri::False),
            ("memory.free >= 20480", Tri::True),
            ("memory.free > 21000MiB", Tri::False),
            ("memory.free >= 21000MiB", Tri::True),
            ("memory.free > 23GB", Tri::False),
            ("memory.free > 21GB", Tri::True), // 21e9 B = 20027 MiB
            ("utilization.gpu < 10", Tri::True),
            ("utilization.gpu < 10%", Tri::True),
            ("utilization.gpu >= 5%", Tri::True),
            ("power.draw > 0.4kW", Tri::True),
            ("power.draw == 412.35", Tri::True),
            ("power.draw < 412350mW", Tri::False),
            ("temperature.gpu < 80C", Tri::True),
            ("temperature.gpu > 54", Tri::False),
            ("memory.used / memory.total > 0.7", Tri::True),
            ("memory.used / memory.total > 75%", Tri::False),
            ("memory.used <= 95% * memory.total", Tri::True),
            ("memory.used + memory.free < memory.total", Tri::True),
            ("memory.free - 1GiB > 19GiB", Tri::True),
            ("-memory.free < -20GiB", Tri::True),
            ("memory.free > 2 * 10GiB", Tri::True),
            ("memory.free > (10 + 10) * 1024", Tri::True),
            ("1GiB == 1024MiB", Tri::True),
        ],
    );
}

#[test]
fn strings_and_logic() {
    let r = h100();
    check(
        &r,
        &[
            (r#"name == "NVIDIA H100 80GB HBM3""#, Tri::True),
            (r#"name != 'NVIDIA H100 80GB HBM3'"#, Tri::False),
            (r#"name ~ "h100""#, Tri::True),
            (r#"name ~ "A100""#, Tri::False),
            (r#"index == "0""#, Tri::True),
            (r#"driver_version ~ "580.""#, Tri::True),
            ("index == count", Tri::False),
            ("index != count", Tri::True),
            ("index < count", Tri::True),
            ("!(index == 0)", Tri::False),
            ("index == 1 || index == 0", Tri::True),
            ("index == 0 && !(memory.free < 1GiB)", Tri::True),
            ("true && !false", Tri::True),
            ("available(power.draw)", Tri::True),
        ],
    );
}

#[test]
fn unavailable_values_are_unknown_and_never_match() {
    let na = vec![
        ("index", Value::Int(1)),
        ("power.draw", Value::err(NvmlCode::NOT_SUPPORTED)),
        ("temperature.gpu", Value::NotAvailable),
        ("name", Value::err(NvmlCode::GPU_IS_LOST)),
    ];
    check(
        &na,
        &[
            ("power.draw > 100", Tri::Unknown),
            ("power.draw <= 100", Tri::Unknown),
            ("!(power.draw > 100)", Tri::Unknown),
            ("temperature.gpu < 90", Tri::Unknown),
            (r#"name != "x""#, Tri::Unknown),
            // Three-valued logic: a known side can decide.
            ("power.draw > 100 || index == 1", Tri::True),
            ("power.draw > 100 && index == 0", Tri::False),
            ("power.draw > 100 && index == 1", Tri::Unknown),
            // The way to accept unavailable values explicitly.
            ("!available(power.draw) || power.draw < 300W", Tri::True),
            ("available(temperature.gpu)", Tri::False),
            ("available(index)", Tri::True),
            // A field that is not in the row at all reads as unavailable.
            ("memory.free > 0", Tri::Unknown),
        ],
    );
    let mut e = gpu("power.draw > 100").unwrap();
    let (read, cells) = row(&na);
    e.bind(&read);
    assert!(!e.holds(&cells));
}

#[test]
fn text_cells_read_as_numbers_when_they_are() {
    // Fields such as compute_cap and bitmasks print as text.
    let cells = [
        ("name", Value::text("9.0")),
        ("driver_version", Value::text("0x1F")),
    ];
    assert_eq!(eval("name >= 8.0", &cells), Tri::True);
    assert_eq!(eval("driver_version == 0x1f", &cells), Tri::True);
    assert_eq!(eval("driver_version == 31", &cells), Tri::True);
    let p = [("name", Value::text("P0"))];
    assert_eq!(eval("name > 1", &p), Tri::Unknown);
}

#[test]
fn fields_are_collected_once_in_order() {
    let e =
        gpu("memory.free > 1 && utilization.gpu < 5 || memory.free < 2 || gpu_name ~ 'x'").unwrap();
    assert_eq!(
        e.fields(),
        &[idx("memory.free"), idx("utilization.gpu"), idx("name")]
    );
    let read = read_list(&[idx("index"), idx("memory.free")], [&e]);
    assert_eq!(
        read,
        vec![
            idx("index"),
            idx("memory.free"),
            idx("utilization.gpu"),
            idx("name")
        ]
    );
}

fn render(src: &str) -> String {
    gpu(src).unwrap_err().render("--where", src)
}

#[test]
fn errors_mark_the_position() {
    assert_eq!(
        render("memory.fre >= 20GiB"),
        "invalid --where expression: unknown field \"memory.fre\"\n  memory.fre >= 20GiB\n  ^^^^^^^^^^ did you mean \"memory.free\"?"
    );
    assert_eq!(
        render("memory.free >= 20GiBs"),
        format!(
            "invalid --where expression: unknown unit \"GiBs\"\n  memory.free >= \
             20GiBs\n                 ^^^^^^ units: {}",
            units::unit_list()
        )
    );
    assert_eq!(
        render("memory.free >= 300W"),
        "invalid --where expression: cannot compare a size and a power: the units do not \
         match\n  memory.free >= 300W\n  ^^^^^^^^^^^^^^^^^^^"
    );
    assert_eq!(
        render("index > 1 &&"),
        "invalid --where expression: the expression ends too early; a value is missing\n  index > 1 &&\n              ^"
    );
    // Columns count characters, not bytes.
    assert_eq!(
        render("name == \"é\" && bogus"),
        "invalid --where expression: unknown field \"bogus\"\n  name == \"é\" && \
         bogus\n                 ^^^^^"
    );
}

#[test]
fn type_errors() {
    for (src, part) in [
        ("memory.free", "is a field, not a condition"),
        ("5", "expected a condition"),
        ("index && 1", "is a field, not a condition"),
        ("!index", "is a field, not a condition"),
        ("name < \"x\"", "strings can only be compared"),
        ("5 ~ 3", "expected a field or a string"),
        ("(index > 1) + 1", "expected a number, found a condition"),
        (
            "memory.free * power.draw > 1",
            "cannot multiply a size by a power",
        ),
        ("1 / memory.free > 1", "cannot divide a number by a size"),
        (
            "index < 50%",
            "cannot compare a plain number and a percentage",
        ),
        ("index > 1 / 0", "division by zero"),
        (
            "utilization.gpu > 80C",
            "cannot compare a percentage and a temperature",
        ),
        ("available(bogus)", "unknown field"),
        ("a < b < c", "cannot be chained"),
        ("index = 1", "compare with =="),
    ] {
        let e = gpu(src).unwrap_err();
        assert!(e.message.contains(part), "{src}: {}", e.message);
    }
}

#[test]
fn compile_maps_to_a_usage_error() {
    let e = Expr::compile("--assert", "nope > 1", QueryMode::GPU).unwrap_err();
    assert_eq!(e.exit_code(), crate::ExitCode::InvalidArgument);
    assert!(e
        .to_string()
        .starts_with("ERROR: invalid --assert expression: unknown field \"nope\"\n"));
}

#[test]
fn explain_lists_the_values_read() {
    let mut e = gpu("temperature.gpu <= 90 && memory.used < 1GiB").unwrap();
    let (read, cells) = row(&h100());
    e.bind(&read);
    let infos = QueryMode::GPU.fields();
    assert_eq!(
        e.explain(&cells, &read, &infos),
        "temperature.gpu = 54, memory.used = 60000 MiB"
    );
    assert_eq!(FIELDS.len(), infos.len());
}

/// Random rows: every field with an arbitrary value.
fn any_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::Int),
        any::<u64>().prop_map(Value::Bytes),
        (any::<f64>(), 0u8..4).prop_map(|(value, decimals)| Value::Float { value, decimals }),
        ".{0,12}".prop_map(Value::Text),
        Just(Value::NotAvailable),
        Just(Value::err(NvmlCode::GPU_IS_LOST)),
    ]
}

/// Strings made of the language's own pieces, so that many of them parse.
fn expr_like() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("memory.free".to_string()),
        Just("utilization.gpu".to_string()),
        Just("name".to_string()),
        Just("index".to_string()),
        Just("power.draw".to_string()),
        Just("available(".to_string()),
        Just("20GiB".to_string()),
        Just("90%".to_string()),
        Just("1.5".to_string()),
        Just("\"H100\"".to_string()),
        Just("0x1f".to_string()),
        Just("true".to_string()),
        prop_oneof![
            Just("&&"),
            Just("||"),
            Just("!"),
            Just("<"),
            Just("<="),
            Just(">"),
            Just(">="),
            Just("=="),
            Just("!="),
            Just("~"),
            Just("+"),
            Just("-"),
            Just("*"),
            Just("/"),
            Just("("),
            Just(")"),
            Just(" ")
        ]
        .prop_map(str::to_string),
    ];
    prop::collection::vec(piece, 0..16).prop_map(|v| v.join(" "))
}

proptest! {
    #[test]
    fn any_input_compiles_or_fails_cleanly(src in any::<String>()) {
        match gpu(&src) {
            Ok(_) => {}
            Err(e) => {
                prop_assert!(e.span.start <= e.span.end && e.span.end <= src.len());
                let (start, end) = (e.span.start, e.span.end);
                prop_assert!(src.is_char_boundary(start) && src.is_char_boundary(end));
                let _ = e.render("--where", &src);
            }
        }
    }

    #[test]
    fn language_like_input_compiles_or_fails_cleanly_and_evaluates(
        src in expr_like(),
        values in prop::collection::vec(any_value(), 16),
    ) {
        match gpu(&src) {
            Ok(mut e) => {
                let read: Vec<usize> = (0..values.len()).collect();
                e.bind(&read);
                let t = e.eval(&values);
                prop_assert!(matches!(t, Tri::True | Tri::False | Tri::Unknown));
                // `!` flips a known result and keeps an unknown one.
                let mut not = gpu(&format!("!({src})")).unwrap();
                not.bind(&read);
                let n = not.eval(&values);
                let expected = match t {
                    Tri::True => Tri::False,
                    Tri::False => Tri::True,
                    Tri::Unknown => Tri::Unknown,
                };
                prop_assert_eq!(n, expected);
            }
            Err(e) => {
                prop_assert!(e.span.end <= src.len());
                let _ = e.render("--where", &src);
            }
        }
    }
}

#[test]
fn a_huge_expression_is_shown_as_a_window_around_its_mark() {
    let huge = format!("utilization.gpu > 1 && {} > 1", "x".repeat(120 * 1024));
    let m = render(&huge);
    assert!(m.len() < 600, "{} bytes", m.len());
    let lines: Vec<&str> = m.lines().collect();
    assert_eq!(lines.len(), 3, "{m}");
    assert!(lines[0].contains("... (122880 bytes)"), "{}", lines[0]);
    assert!(lines[1].starts_with("  utilization.gpu > 1 && xxx") && lines[1].ends_with("..."));
    // The mark starts under the name.
    assert_eq!(lines[2].find('^'), lines[1].find('x'));
    let far = format!("{}memory.fre > 1", "utilization.gpu > 1 || ".repeat(50));
    let m = render(&far);
    let lines: Vec<&str> = m.lines().collect();
    assert!(
        lines[1].starts_with("  ...") && !lines[1].ends_with("..."),
        "{m}"
    );
    assert_eq!(lines[2].find('^'), lines[1].find("memory.fre"), "{m}");
}
