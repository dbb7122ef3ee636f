// placeholder until the framing lands
namespace warplens::protocol {}
