mod code_corpus;
mod detector_props;
mod leak_names;

#[test]
fn no_forgotten_test_files() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let main = std::fs::read_to_string(here.join("main.rs")).expect("main.rs");
    for entry in std::fs::read_dir(&here).expect("tests/it") {
        let name = entry.expect("entry").file_name().into_string().expect("utf-8 name");
        if let Some(module) = name.strip_suffix(".rs").filter(|m| *m != "main") {
            assert!(main.contains(&format!("mod {module};")), "tests/it/{name} is not declared in main.rs");
        }
    }
}
