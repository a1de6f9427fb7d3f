#include "techniques/sass_techniques.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace hpcreward::techniques {

namespace {

std::string_view trim(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  return text;
}

bool starts(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool hex(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  });
}

// "LDGSTS.E.BYPASS.128" -> "LDGSTS"
std::string_view base_of(std::string_view opcode) {
  return opcode.substr(0, opcode.find('.'));
}

bool one_of(std::string_view word, std::initializer_list<std::string_view> words) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// An instruction line: "/*0a40*/  [{] [@pred] OPCODE operands ; [}]  /* 0x<encoding> */".
// Returns false for anything else (encoding continuation lines, headers, names).
struct Instruction {
  std::string predicate;
  std::string opcode;
  std::string text;  // opcode and operands, without the predicate and the ';'
};

bool parse_instruction(std::string_view line, Instruction &out) {
  line = trim(line);
  if (!starts(line, "/*")) return false;
  const std::size_t close = line.find("*/");
  if (close == std::string_view::npos || !hex(line.substr(2, close - 2))) return false;
  std::string_view body = line.substr(close + 2);
  // The encoding comment at the end of the line (absent on some tools' output).
  if (const std::size_t comment = body.rfind("/*"); comment != std::string_view::npos)
    body = body.substr(0, comment);
  body = trim(body);
  if (starts(body, "{")) body = trim(body.substr(1));
  while (!body.empty() && (body.back() == '}' || body.back() == ';' || body.back() == ' '))
    body.remove_suffix(1);
  if (starts(body, "@")) {
    const std::size_t space = body.find_first_of(" \t");
    if (space == std::string_view::npos) return false;
    out.predicate = std::string(body.substr(0, space));
    body = trim(body.substr(space));
  } else {
    out.predicate.clear();
  }
  const std::size_t end = body.find_first_of(" \t;");
  out.opcode = std::string(body.substr(0, end));
  out.text = std::string(body);
  if (out.opcode.empty()) return false;
  // An opcode's base is upper-case letters and digits; its modifiers add lower-case shapes
  // (HGMMA.64x8x16.F32), '.' and '_'. Nothing else appears in SASS.
  const auto modifier = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_';
  };
  const std::string_view base = base_of(out.opcode);
  return !base.empty() && base[0] >= 'A' && base[0] <= 'Z' &&
         std::all_of(base.begin(), base.end(),
                     [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }) &&
         std::all_of(out.opcode.begin(), out.opcode.end(), modifier);
}

// "REG:32 STACK:0 SHARED:2048 LOCAL:0 ..." -> 2048; -1 when absent.
int shared_bytes(std::string_view line) {
  const std::size_t at = line.find("SHARED:");
  if (at == std::string_view::npos) return -1;
  int value = 0;
  bool any = false;
  for (std::size_t i = at + 7; i < line.size() && line[i] >= '0' && line[i] <= '9'; ++i) {
    value = value * 10 + (line[i] - '0');
    any = true;
    if (value > (1 << 30)) return -1;
  }
  return any ? value : -1;
}

void record(SassUse &use, const std::string &function, const Instruction &instruction) {
  if (use.count++ == 0) {
    use.function = function;
    use.instruction = instruction.text;
  }
}

// One "Fatbin elf code" section while it is read.
struct Cubin {
  bool counted = false;
  bool arch_seen = false;
  std::set<std::string> listed;                 // kernels in its resource usage
  std::map<std::string, int> shared;            // their static shared memory
  std::map<std::string, int> instructions;      // kernels with a code block: instruction count
};

class Parser {
 public:
  explicit Parser(std::string_view arch) : arch_(arch) {}

  SassTechniques run(std::string_view dump) {
    std::size_t at = 0;
    while (at <= dump.size() && out_.error.empty()) {
      const std::size_t end = std::min(dump.find('\n', at), dump.size());
      line(dump.substr(at, end - at));
      at = end + 1;
    }
    finish_cubin();
    if (out_.error.empty() && out_.cubins == 0)
      out_.error = arch_.empty() ? "the dump holds no device code (no ELF section)"
                                 : "the dump holds no device code for " + std::string(arch_);
    out_.parsed = out_.error.empty();
    return std::move(out_);
  }

 private:
  enum class Part { outside, ptx, header, resources, code };

  void line(std::string_view raw) {
    const std::string_view text = trim(raw);
    if (text == "Fatbin elf code:") {
      finish_cubin();
      cubin_ = Cubin{};
      in_cubin_ = true;
      part_ = Part::header;
      function_.clear();
      return;
    }
    if (starts(text, "Fatbin ") && text.back() == ':') {  // ptx code, or anything not ELF
      finish_cubin();
      part_ = Part::ptx;
      return;
    }
    if (!in_cubin_ || part_ == Part::ptx) return;
    if (part_ == Part::header && starts(text, "arch = ") && !cubin_.arch_seen) {
      cubin_.arch_seen = true;
      cubin_.counted = arch_.empty() || trim(text.substr(7)) == arch_;
      return;
    }
    if (text == "Resource usage:") {
      part_ = Part::resources;
      return;
    }
    if (starts(text, "code for ")) {
      part_ = Part::code;
      function_.clear();
      return;
    }
    if (part_ == Part::resources) return resource_line(text);
    if (part_ != Part::code) return;
    if (starts(text, "Function : ")) {
      function_ = std::string(trim(text.substr(11)));
      cubin_.instructions.emplace(function_, 0);
      return;
    }
    Instruction instruction;
    if (function_.empty() || !parse_instruction(text, instruction)) return;
    ++cubin_.instructions[function_];
    if (!cubin_.counted || instruction.predicate == "@!PT" || instruction.predicate == "@!UPT")
      return;
    if (shared_memory_opcode(instruction.opcode)) record(out_.smem, function_, instruction);
    if (tensor_opcode(instruction.opcode)) record(out_.tensor, function_, instruction);
    if (async_copy_opcode(instruction.opcode)) record(out_.async, function_, instruction);
    if (warpgroup_mma_opcode(instruction.opcode)) record(out_.wgmma, function_, instruction);
    if (tensor_memory_copy_opcode(instruction.opcode)) record(out_.tma, function_, instruction);
  }

  // " Function _Z2cpPKfPf:" then "  REG:12 STACK:0 SHARED:2048 ...".
  void resource_line(std::string_view text) {
    if (starts(text, "Function ") && text.back() == ':') {
      resource_function_ = std::string(trim(text.substr(9, text.size() - 10)));
      cubin_.listed.insert(resource_function_);
    } else if (!resource_function_.empty() && starts(text, "REG:")) {
      cubin_.shared[resource_function_] = shared_bytes(text);
      resource_function_.clear();
    }
  }

  void finish_cubin() {
    if (!in_cubin_) return;
    in_cubin_ = false;
    if (!cubin_.counted) return;
    if (!cubin_.arch_seen) {
      out_.error = "an ELF section of the dump names no architecture";
      return;
    }
    ++out_.cubins;
    for (const std::string &name : cubin_.listed)
      if (cubin_.instructions.count(name) == 0) {
        out_.error = "kernel " + name + " is listed without code (could cuobjdump run nvdisasm?)";
        return;
      }
    for (const auto &[name, count] : cubin_.instructions) {
      if (count == 0) {
        out_.error = "kernel " + name + " has no instructions in the dump";
        return;
      }
      const auto shared = cubin_.shared.find(name);
      out_.functions.push_back({name, count, shared == cubin_.shared.end() ? -1 : shared->second});
    }
  }

  std::string_view arch_;
  SassTechniques out_;
  Cubin cubin_;
  bool in_cubin_ = false;
  Part part_ = Part::outside;
  std::string function_;
  std::string resource_function_;
};

std::string describe(const SassTechniques &found, std::string_view name, const SassUse &use,
                     bool with_shared) {
  std::string text(name);
  if (use.count == 0) return text + ": none";
  text += ": " + std::to_string(use.count) + " instruction" + (use.count == 1 ? "" : "s") +
          ", first " + use.instruction + " in " + use.function;
  if (with_shared)
    for (const SassFunction &function : found.functions)
      if (function.name == use.function && function.static_shared_bytes >= 0)
        text += " (static shared " + std::to_string(function.static_shared_bytes) + " bytes)";
  return text;
}

}  // namespace

bool shared_memory_opcode(std::string_view opcode) {
  return one_of(base_of(opcode), {"LDS", "LDSM", "STS", "STSM", "ATOMS", "LDGSTS", "UTMALDG",
                                  "UBLKCP"});
}

bool tensor_opcode(std::string_view opcode) {
  const std::string_view base = base_of(opcode);
  return base.size() > 3 && base.substr(base.size() - 3) == "MMA";
}

bool async_copy_opcode(std::string_view opcode) {
  return one_of(base_of(opcode),
                {"LDGSTS", "UTMALDG", "UTMASTG", "UTMAREDG", "UBLKCP", "UBLKRED"});
}

bool warpgroup_mma_opcode(std::string_view opcode) {
  const std::string_view base = base_of(opcode);
  return base.size() > 4 && base.substr(base.size() - 4) == "GMMA";
}

bool tensor_memory_copy_opcode(std::string_view opcode) {
  return one_of(base_of(opcode), {"UTMALDG", "UTMASTG", "UTMAREDG", "UBLKCP", "UBLKRED"});
}

SassTechniques parse_sass(std::string_view dump, std::string_view arch) {
  return Parser(arch).run(dump);
}

std::vector<std::string> sass_technique_names(const SassTechniques &found) {
  std::vector<std::string> names;
  if (!found.parsed) return names;
  if (found.smem.count > 0) names.emplace_back("smem");
  if (found.tensor.count > 0) names.emplace_back("tensor");
  if (found.async.count > 0) names.emplace_back("async");
  if (found.wgmma.count > 0) names.emplace_back("wgmma");
  if (found.tma.count > 0) names.emplace_back("tma");
  return names;
}

std::string sass_evidence(const SassTechniques &found) {
  if (!found.parsed) return "SASS not read: " + found.error;
  return describe(found, "smem", found.smem, true) + "; " +
         describe(found, "tensor", found.tensor, false) + "; " +
         describe(found, "async", found.async, false) + "; " +
         describe(found, "wgmma", found.wgmma, false) + "; " + describe(found, "tma", found.tma, false) + " (" +
         std::to_string(found.functions.size()) + " kernel" +
         (found.functions.size() == 1 ? "" : "s") + " in " + std::to_string(found.cubins) +
         " cubin" + (found.cubins == 1 ? "" : "s") + ")";
}

TechniqueSummary summarise(const SassTechniques &found) {
  TechniqueSummary summary;
  summary.detected = true;
  summary.techniques = sass_technique_names(found);
  summary.evidence = sass_evidence(found);
  return summary;
}

}  // namespace hpcreward::techniques
