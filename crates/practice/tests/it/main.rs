mod code_corpus;
mod detector_props;
mod leak_names;
