mod code_corpus;
mod leak_names;
