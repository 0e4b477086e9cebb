#include "suggest/rule_text.h"

#include <yaml-cpp/yaml.h>

namespace archpatch::suggest {
namespace {

void EmitAction(YAML::Emitter& out, const rules::EditAction& action) {
  if (const auto* gate = std::get_if<rules::CudaGate>(&action)) {
    out << YAML::Key << "cuda-gate" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "macro" << YAML::Value << gate->macro;
    if (!gate->scope.empty()) out << YAML::Key << "scope" << YAML::Value << gate->scope;
    out << YAML::Key << "strategy" << YAML::Value << std::string(cuda::WidenStrategyName(gate->strategy));
    out << YAML::EndMap;
  } else if (const auto* py = std::get_if<rules::PythonGate>(&action)) {
    out << YAML::Key << "python-gate" << YAML::Value << YAML::BeginMap;
    if (!py->scope.empty()) out << YAML::Key << "scope" << YAML::Value << py->scope;
    if (!py->name.empty()) out << YAML::Key << "name" << YAML::Value << py->name;
    out << YAML::Key << "add" << YAML::Value << std::string(rules::AddFormName(py->add));
    out << YAML::EndMap;
  } else if (const auto* replace = std::get_if<rules::Replace>(&action)) {
    out << YAML::Key << "replace" << YAML::Value << YAML::BeginMap;
    if (!replace->scope.empty()) out << YAML::Key << "scope" << YAML::Value << replace->scope;
    out << YAML::Key << "old" << YAML::Value << YAML::DoubleQuoted << replace->old_text;
    out << YAML::Key << "new" << YAML::Value << YAML::DoubleQuoted << replace->new_text;
    out << YAML::EndMap;
  }
}

}  // namespace

std::string RuleYaml(const rules::Rule& rule) {
  YAML::Emitter out;
  out.SetIndent(2);
  out << YAML::BeginMap;
  out << YAML::Key << "id" << YAML::Value << rule.id;
  out << YAML::Key << "summary" << YAML::Value << rule.summary;
  if (!rule.notes.empty()) {
    std::string notes = rule.notes;  // `|` keeps one final newline of its own
    while (notes.ends_with('\n')) notes.pop_back();
    out << YAML::Key << "notes" << YAML::Value << YAML::Literal << notes;
  }
  out << YAML::Key << "distribution" << YAML::Value << rule.distribution;
  if (!rule.versions.empty()) out << YAML::Key << "versions" << YAML::Value << YAML::DoubleQuoted << rule.versions;
  out << YAML::Key << "targets" << YAML::Value << YAML::Flow << rule.target_names;
  out << YAML::Key << "caches" << YAML::Value << YAML::Flow << rule.caches;
  out << YAML::Key << "edits" << YAML::Value << YAML::BeginSeq;
  for (const rules::Edit& edit : rule.edits) {
    out << YAML::BeginMap;
    out << YAML::Key << "file" << YAML::Value << edit.file;
    EmitAction(out, edit.action);
    if (edit.expect) out << YAML::Key << "expect" << YAML::Value << *edit.expect;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace archpatch::suggest
