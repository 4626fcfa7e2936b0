mod code_corpus;
mod detector_props;
mod leak_names;

devcoach_core::no_forgotten_test_files!();
