// Writers shared by the report's JSON values (report/finding.cc, report/groups.cc): templates
// over a sink of report/json_sink.h, so that a value built (ValueSink) and its text printed
// (JsonTextWriter) come from the same calls. Each object is opened by its caller.
#pragma once

#include <string_view>
#include <vector>

#include "gate/prebuilt.h"

namespace archpatch::report {

// `key`: an array of one object per item, whose members write_object writes.
template <class S, class Items, class WriteObject>
void WriteObjects(S& s, std::string_view key, const Items& items, WriteObject write_object) {
  s.BeginArray(key);
  for (const auto& item : items) {
    s.BeginObject();
    write_object(item);
    s.End();
  }
  s.End();
}

template <class S>
void WritePrebuilt(S& s, std::string_view key, const std::vector<gate::PrebuiltArtifacts>& links) {
  WriteObjects(s, key, links, [&](const gate::PrebuiltArtifacts& l) {
    s.Member("group", l.group);
    s.Member("declared", l.declared);
    s.Member("path", l.path);
    s.Member("via", l.via);
    s.Member("arches", l.arches);
    s.Member("arches_from", gate::ArchesFromName(l.arches_from));
    s.Member("binaries", l.binaries);
    s.Member("binary_count", l.binary_count);
    if (l.runs_on_target == Tri::kUnknown)
      s.Member("runs_on_target", nullptr);
    else
      s.Member("runs_on_target", l.runs_on_target == Tri::kTrue);
  });
}

}  // namespace archpatch::report
