// The candidates this session verified, so that apply_rewrite can check a
// candidate against its own verdict instead of trusting the agent.
//
// An agent submits a whole rewritten file to `verify` (or `optimize` finds
// one); the verdict is recorded here with the candidate's text, the text's
// hash and the hash of the file it was verified against. apply_rewrite
// writes a candidate only when its recorded level is >= 2 and it is
// offerable (correct, faster, plausible), the hash the agent quotes is the
// candidate's, and the file still holds the text it was verified against.
// Nothing survives the session: a verdict from another run is not evidence.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace warplens::mcp {

struct CandidateRecord {
  std::string id;                  // "c1", "c2", ... in submission order
  std::filesystem::path file;      // the file it rewrites (canonical)
  std::string kernel;
  std::string text;                // the whole candidate file
  std::string text_hash;           // hash_text(text)
  std::string base_hash;           // hash_text() of the file when it was verified
  int level = -1;                  // the verdict's reward level
  bool offerable = false;          // verifier::Verdict::offerable(): level >= 2, not needing review
  std::string origin;              // "verify" or "optimize"
  std::string summary;             // one line of the verdict, for refusals
};

// agent::text_hash as 16 hex digits: what results and apply_rewrite quote.
std::string hash_text(const std::string& text);

class CandidateRegistry {
 public:
  // Assigns the id and stores the record; returns it.
  CandidateRecord add(CandidateRecord record);
  std::optional<CandidateRecord> find(const std::string& id) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, CandidateRecord> records_;
  int next_ = 1;
};

}  // namespace warplens::mcp
