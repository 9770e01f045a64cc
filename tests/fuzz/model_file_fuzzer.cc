// libFuzzer target: the .gem loader must reject any byte string with a Status, never
// crash, hang or allocate more than the input justifies.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ge/logging.h"
#include "ge/model_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  ge::Result<ge::LoadedModelFile> loaded = ge::deserialize_model_file(bytes, "fuzz.gem");
  if (loaded.is_ok()) {
    // Whatever loads must describe itself without trouble.
    (void)ge::describe_model_file(loaded->info);
  }
  // The checksum makes random payloads fail early; also drive the parser behind it by
  // re-signing the input so mutations reach the table, the model info and the graph.
  if (size >= ge::kModelFileHeaderBytes) {
    std::string signed_bytes(bytes);
    const uint32_t version = static_cast<uint8_t>(bytes[8]) | static_cast<uint32_t>(static_cast<uint8_t>(bytes[9])) << 8 |
                             static_cast<uint32_t>(static_cast<uint8_t>(bytes[10])) << 16 |
                             static_cast<uint32_t>(static_cast<uint8_t>(bytes[11])) << 24;
    const uint64_t checksum = ge::model_file_checksum(bytes.substr(ge::kModelFileHeaderBytes), version);
    for (int i = 0; i < 8; ++i) signed_bytes[24 + i] = static_cast<char>((checksum >> (8 * i)) & 0xff);
    ge::Result<ge::LoadedModelFile> resigned = ge::deserialize_model_file(signed_bytes, "fuzz.gem");
    if (resigned.is_ok()) (void)ge::describe_model_file(resigned->info);
  }
  return 0;
}
