#include "python/option_keywords.h"

namespace flashnerd::python {

namespace {

// Every field a Python call takes, as its keyword (make_vec, Model, Policy, write_dataset ...);
// other fields (a robot spec's) keep their own names.
constexpr OptionName kOptionKeywords[] = {
    {"envs", "num_envs="},       {"model", "model="},         {"backend", "backend="},
    {"precision", "precision="}, {"threads", "threads="},     {"seed", "seed="},
    {"batch", "batch="},         {"overwrite", "overwrite="},
};

}  // namespace

std::string option_keyword(const std::string& field) { return option_name(kOptionKeywords, field); }

std::string keyword_message(const OptionError& e) { return e.message(option_keyword); }

}  // namespace flashnerd::python
