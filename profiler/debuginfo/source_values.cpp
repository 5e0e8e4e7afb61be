// SPDX-License-Identifier: GPL-3.0-or-later
// Types, variables and values from DWARF (docs/debugger.md, "Variables").

#include "profiler/debuginfo/source_values.h"

#include "emu/hex.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <map>
#include <unordered_map>

namespace copperline {

namespace {

constexpr int kMaxTypeDepth = 64;       // nesting a hostile file could loop through
constexpr std::size_t kMaxSummary = 240; // characters of an aggregate's one-line summary
constexpr std::uint32_t kMaxString = 200;

using Kind = SourceType::Kind;

std::string dieName(Dwarf_Die* die) {
    Dwarf_Attribute attr;
    if (dwarf_attr_integrate(die, DW_AT_name, &attr))
        if (const char* s = dwarf_formstring(&attr)) return s;
    return {};
}

bool typeDie(Dwarf_Die* die, Dwarf_Die* out) {
    Dwarf_Attribute attr;
    return dwarf_attr_integrate(die, DW_AT_type, &attr) && dwarf_formref_die(&attr, out);
}

std::optional<Dwarf_Word> udata(Dwarf_Die* die, int at) {
    Dwarf_Attribute attr;
    Dwarf_Word v = 0;
    if (dwarf_attr_integrate(die, at, &attr) && dwarf_formudata(&attr, &v) == 0) return v;
    return std::nullopt;
}

bool flag(Dwarf_Die* die, int at) {
    Dwarf_Attribute attr;
    bool v = false;
    return dwarf_attr_integrate(die, at, &attr) && dwarf_formflag(&attr, &v) == 0 && v;
}

// The children of a DIE, in order.
template <class F>
void eachChild(Dwarf_Die* die, F&& f) {
    Dwarf_Die child;
    if (dwarf_child(die, &child) != 0) return;
    std::size_t guard = 0;
    do {
        if (++guard > 1'000'000) return;
        f(&child);
    } while (dwarf_siblingof(&child, &child) == 0);
}

std::uint64_t originOf(Dwarf_Die* die) {
    Dwarf_Attribute attr;
    Dwarf_Die origin;
    if (dwarf_attr(die, DW_AT_abstract_origin, &attr) && dwarf_formref_die(&attr, &origin))
        return dwarf_dieoffset(&origin);
    return 0;
}

std::string escapeChar(std::uint8_t c, char quote) {
    switch (c) {
    case '\n': return "\\n";
    case '\t': return "\\t";
    case '\r': return "\\r";
    case '\\': return "\\\\";
    case 0: return "\\000";
    default: break;
    }
    if (c == std::uint8_t(quote)) return std::string("\\") + quote;
    if (c < 0x20 || c >= 0x7F) {
        char b[8];
        std::snprintf(b, sizeof b, "\\%03o", c);
        return b;
    }
    return std::string(1, char(c));
}

std::string hexValue(std::uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

std::string floatText(const std::vector<std::uint8_t>& bytes) {
    char b[64];
    if (bytes.size() == 4) {
        const float f = std::bit_cast<float>(std::uint32_t(bigEndianInteger(bytes, false)));
        auto r = std::to_chars(b, b + sizeof b, f);
        return std::string(b, r.ptr);
    }
    if (bytes.size() == 8) {
        const double d = std::bit_cast<double>(std::uint64_t(bigEndianInteger(bytes, false)));
        auto r = std::to_chars(b, b + sizeof b, d);
        return std::string(b, r.ptr);
    }
    return "<" + std::to_string(bytes.size()) + "-byte float>";
}

TypePtr makeBase(const char* name, std::uint32_t size, bool isSigned, bool isChar = false,
                 Kind kind = Kind::Integer) {
    auto t = std::make_shared<SourceType>();
    t->kind = kind;
    t->name = name;
    t->size = size;
    t->isSigned = isSigned;
    t->isChar = isChar;
    return t;
}

} // namespace

// ---- types ------------------------------------------------------------------------------

const SourceType& SourceType::resolved() const {
    const SourceType* t = this;
    for (int i = 0; i < kMaxTypeDepth && (t->kind == Kind::Typedef || t->kind == Kind::Qualified) && t->target; ++i)
        t = t->target.get();
    return *t;
}

bool SourceType::expandable() const {
    const SourceType& r = resolved();
    switch (r.kind) {
    case Kind::Struct:
    case Kind::Union: return !r.members.empty();
    case Kind::Array: return r.count > 0;
    case Kind::Pointer: {
        if (!r.target) return false;
        const SourceType& to = r.target->resolved();
        return to.kind != Kind::Void && to.kind != Kind::Function && to.kind != Kind::Unknown && !to.incomplete;
    }
    default: return false;
    }
}

TypePtr baseType(const std::string& name) {
    static const std::map<std::string, TypePtr> types = [] {
        std::map<std::string, TypePtr> m;
        const auto add = [&](std::initializer_list<const char*> names, std::uint32_t size, bool sign,
                             bool isChar = false) {
            const TypePtr t = makeBase(*names.begin(), size, sign, isChar);
            for (const char* n : names) m[n] = t;
        };
        add({"char", "signed char"}, 1, true, true);
        add({"unsigned char"}, 1, false, true);
        add({"short", "short int", "signed short", "signed short int", "short signed int"}, 2, true);
        add({"unsigned short", "unsigned short int", "short unsigned int"}, 2, false);
        add({"int", "signed", "signed int"}, 4, true);
        add({"unsigned int", "unsigned"}, 4, false);
        add({"long", "long int", "signed long", "signed long int", "long signed int"}, 4, true);
        add({"unsigned long", "unsigned long int", "long unsigned int"}, 4, false);
        add({"long long", "long long int", "signed long long"}, 8, true);
        add({"unsigned long long", "long long unsigned int", "unsigned long long int"}, 8, false);
        m["_Bool"] = m["bool"] = makeBase("_Bool", 1, false, false, Kind::Boolean);
        m["float"] = makeBase("float", 4, true, false, Kind::Float);
        m["double"] = makeBase("double", 8, true, false, Kind::Float);
        m["void"] = makeBase("void", 0, false, false, Kind::Void);
        return m;
    }();
    const auto it = types.find(name);
    return it == types.end() ? nullptr : it->second;
}

TypePtr pointerTo(const TypePtr& to) {
    auto t = std::make_shared<SourceType>();
    t->kind = Kind::Pointer;
    t->size = 4;
    t->target = to;
    const std::string n = to ? to->name : "void";
    t->name = !n.empty() && n.back() == '*' ? n + "*" : n + " *";
    return t;
}

// ---- values ------------------------------------------------------------------------------

std::int64_t bigEndianInteger(const std::vector<std::uint8_t>& bytes, bool isSigned) {
    std::uint64_t v = 0;
    for (std::uint8_t b : bytes) v = v << 8 | b;
    const std::size_t bits = bytes.size() * 8;
    if (isSigned && bits > 0 && bits < 64 && (v >> (bits - 1)) & 1) v |= ~std::uint64_t(0) << bits;
    return std::int64_t(v);
}

std::vector<std::uint8_t> bigEndianBytes(std::uint64_t v, std::uint32_t size) {
    std::vector<std::uint8_t> out(size);
    for (std::uint32_t i = 0; i < size; ++i) out[size - 1 - i] = std::uint8_t(i < 8 ? v >> (8 * i) : 0);
    return out;
}

SourceValue SourceValue::optimizedOut(TypePtr t) {
    SourceValue v;
    v.type = std::move(t);
    v.where = Where::OptimizedOut;
    return v;
}
SourceValue SourceValue::unavailable(TypePtr t, std::string why) {
    SourceValue v;
    v.type = std::move(t);
    v.where = Where::Unavailable;
    v.why = std::move(why);
    return v;
}
SourceValue SourceValue::ofBytes(TypePtr t, std::vector<std::uint8_t> bytes) {
    SourceValue v;
    v.type = std::move(t);
    v.where = Where::Bytes;
    v.bytes = std::move(bytes);
    return v;
}
SourceValue SourceValue::ofInteger(TypePtr t, std::int64_t value) {
    const std::uint32_t size = t ? std::max<std::uint32_t>(t->resolved().size, 1) : 4;
    return ofBytes(std::move(t), bigEndianBytes(std::uint64_t(value), size));
}
SourceValue SourceValue::inMemory(TypePtr t, std::uint32_t address) {
    SourceValue v;
    v.type = std::move(t);
    v.where = Where::Memory;
    v.address = address;
    return v;
}

struct SourceValues::Impl {
    std::shared_ptr<const DwarfFile> file;
    mutable std::unordered_map<std::uint64_t, std::shared_ptr<SourceType>> types;
    // Every unit-level variable with a location or a constant, by name (built on first use).
    mutable bool indexed = false;
    mutable std::multimap<std::string, std::uint64_t> globalsByName;
    mutable std::multimap<std::string, std::pair<std::int64_t, std::uint64_t>> enumerators; // value, type DIE

    Dwarf* dwarf() const { return file->dwarf(); }

    bool die(std::uint64_t offset, Dwarf_Die* out) const {
        return dwarf() && dwarf_offdie(dwarf(), offset, out) != nullptr;
    }

    TypePtr type(Dwarf_Die* d, int depth = 0) const;
    TypePtr typeOf(Dwarf_Die* var) const {
        Dwarf_Die t;
        if (!typeDie(var, &t)) return baseType("void");
        return type(&t);
    }
    void index() const;
};

TypePtr SourceValues::Impl::type(Dwarf_Die* d, int depth) const {
    const std::uint64_t offset = dwarf_dieoffset(d);
    if (auto it = types.find(offset); it != types.end()) return it->second;
    auto t = std::make_shared<SourceType>();
    // In the cache before its parts are read, so that a struct pointing at itself ends.
    types.emplace(offset, t);
    if (depth > kMaxTypeDepth) {
        t->name = "<type nested too deep>";
        return t;
    }
    const auto targetOf = [&](Dwarf_Die* of) -> TypePtr {
        Dwarf_Die to;
        if (!typeDie(of, &to)) return baseType("void");
        return type(&to, depth + 1);
    };
    const std::string name = dieName(d);
    const int bytes = dwarf_bytesize(d);
    t->incomplete = flag(d, DW_AT_declaration);
    switch (dwarf_tag(d)) {
    case DW_TAG_base_type: {
        const Dwarf_Word enc = udata(d, DW_AT_encoding).value_or(DW_ATE_signed);
        t->name = name;
        t->size = bytes > 0 ? std::uint32_t(bytes) : 0;
        switch (enc) {
        case DW_ATE_boolean: t->kind = Kind::Boolean; break;
        case DW_ATE_float: t->kind = Kind::Float; break;
        case DW_ATE_signed_char:
            t->kind = Kind::Integer;
            t->isSigned = t->isChar = true;
            break;
        case DW_ATE_unsigned_char:
            t->kind = Kind::Integer;
            t->isChar = true;
            break;
        case DW_ATE_signed: t->kind = Kind::Integer, t->isSigned = true; break;
        case DW_ATE_unsigned:
        case DW_ATE_UTF: t->kind = Kind::Integer; break;
        default: t->kind = Kind::Unknown; break;
        }
        break;
    }
    case DW_TAG_unspecified_type:
        t->kind = Kind::Void;
        t->name = name.empty() ? "void" : name;
        break;
    case DW_TAG_typedef: {
        t->kind = Kind::Typedef;
        t->name = name;
        t->target = targetOf(d);
        t->size = t->target ? t->target->resolved().size : 0;
        break;
    }
    case DW_TAG_const_type:
    case DW_TAG_volatile_type:
    case DW_TAG_restrict_type:
    case DW_TAG_atomic_type: {
        t->kind = Kind::Qualified;
        t->target = targetOf(d);
        const char* q = dwarf_tag(d) == DW_TAG_const_type      ? "const"
                        : dwarf_tag(d) == DW_TAG_volatile_type ? "volatile"
                        : dwarf_tag(d) == DW_TAG_restrict_type ? "restrict"
                                                               : "_Atomic";
        const std::string inner = t->target ? t->target->name : "void";
        const Kind under = t->target ? t->target->resolved().kind : Kind::Void;
        // A qualified array is an array of qualified elements: C spells it by its elements.
        t->name = under == Kind::Pointer ? inner + " " + q
                  : under == Kind::Array ? inner
                                         : std::string(q) + " " + inner;
        t->size = t->target ? t->target->resolved().size : 0;
        break;
    }
    case DW_TAG_pointer_type:
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type: {
        t->kind = Kind::Pointer;
        t->size = bytes > 0 ? std::uint32_t(bytes) : 4;
        t->target = targetOf(d);
        const SourceType* to = t->target.get();
        if (to && to->resolved().kind == Kind::Function) {
            // int (*)(int, char *)
            const std::string& f = to->resolved().name;
            const auto paren = f.find('(');
            t->name = paren == std::string::npos ? f + " *" : f.substr(0, paren) + "(*)" + f.substr(paren);
        } else {
            const std::string n = to ? to->name : "void";
            t->name = !n.empty() && n.back() == '*' ? n + "*" : n + " *";
        }
        break;
    }
    case DW_TAG_structure_type:
    case DW_TAG_class_type:
    case DW_TAG_union_type: {
        const bool isUnion = dwarf_tag(d) == DW_TAG_union_type;
        t->kind = isUnion ? Kind::Union : Kind::Struct;
        t->name = std::string(isUnion ? "union " : "struct ") + (name.empty() ? "{...}" : name);
        t->size = bytes > 0 ? std::uint32_t(bytes) : 0;
        eachChild(d, [&](Dwarf_Die* m) {
            if (dwarf_tag(m) != DW_TAG_member) return;
            SourceType::Member member;
            member.name = dieName(m);
            member.type = targetOf(m);
            member.offset = std::uint32_t(udata(m, DW_AT_data_member_location).value_or(0));
            const auto bitSize = udata(m, DW_AT_bit_size);
            if (bitSize && *bitSize > 0 && *bitSize <= 64) {
                member.bitSize = std::uint32_t(*bitSize);
                if (const auto dataBit = udata(m, DW_AT_data_bit_offset)) {
                    // DWARF 4 and later: bits from the start of the aggregate, the most
                    // significant bit of its first byte first on a big-endian machine.
                    member.offset = std::uint32_t(*dataBit / 8);
                    member.bitOffset = std::uint32_t(*dataBit % 8);
                } else if (const auto bitOffset = udata(m, DW_AT_bit_offset)) {
                    // DWARF 2 and 3: bits from the most significant bit of a storage unit of
                    // DW_AT_byte_size bytes at the member's location.
                    member.offset += std::uint32_t(*bitOffset / 8);
                    member.bitOffset = std::uint32_t(*bitOffset % 8);
                }
            }
            t->members.push_back(std::move(member));
        });
        break;
    }
    case DW_TAG_enumeration_type: {
        t->kind = Kind::Enum;
        t->name = "enum " + (name.empty() ? std::string("{...}") : name);
        t->size = bytes > 0 ? std::uint32_t(bytes) : 4;
        Dwarf_Die under;
        t->target = typeDie(d, &under) ? type(&under, depth + 1) : nullptr;
        t->isSigned = t->target ? t->target->resolved().isSigned : false;
        eachChild(d, [&](Dwarf_Die* e) {
            if (dwarf_tag(e) != DW_TAG_enumerator) return;
            Dwarf_Attribute attr;
            Dwarf_Sword v = 0;
            if (dwarf_attr(e, DW_AT_const_value, &attr) && dwarf_formsdata(&attr, &v) == 0)
                t->enumerators.emplace_back(dieName(e), v);
        });
        if (!t->isSigned)
            for (const auto& [n, v] : t->enumerators)
                if (v < 0) t->isSigned = true;
        break;
    }
    case DW_TAG_array_type: {
        // Each dimension is an array of the next: int [3][4] is 3 of int [4].
        std::vector<std::uint32_t> dims;
        eachChild(d, [&](Dwarf_Die* r) {
            if (dwarf_tag(r) != DW_TAG_subrange_type && dwarf_tag(r) != DW_TAG_enumeration_type) return;
            std::uint32_t n = 0;
            if (const auto count = udata(r, DW_AT_count))
                n = std::uint32_t(std::min<Dwarf_Word>(*count, 0xFFFFFFFF));
            else if (const auto upper = udata(r, DW_AT_upper_bound)) {
                const Dwarf_Word lower = udata(r, DW_AT_lower_bound).value_or(0);
                n = *upper >= lower ? std::uint32_t(std::min<Dwarf_Word>(*upper - lower + 1, 0xFFFFFFFF)) : 0;
            }
            dims.push_back(n);
        });
        if (dims.empty()) dims.push_back(0);
        TypePtr element = targetOf(d);
        std::string suffix;
        for (std::size_t i = dims.size(); i-- > 1;) {
            auto inner = std::make_shared<SourceType>();
            inner->kind = Kind::Array;
            inner->count = dims[i];
            inner->target = element;
            inner->size = element ? element->resolved().size * dims[i] : 0;
            suffix = "[" + std::to_string(dims[i]) + "]" + suffix;
            inner->name = (element ? element->name : "?") + " " + suffix;
            element = inner;
        }
        t->kind = Kind::Array;
        t->count = dims[0];
        t->target = element;
        const TypePtr base = targetOf(d);
        t->size = element ? element->resolved().size * dims[0] : 0;
        t->name = (base ? base->name : "?") + " [" + (dims[0] ? std::to_string(dims[0]) : "") + "]" + suffix;
        break;
    }
    case DW_TAG_subprogram: // a function's own DIE, read as its type (a function named in an expression)
    case DW_TAG_subroutine_type: {
        t->kind = Kind::Function;
        const TypePtr ret = targetOf(d);
        std::string params;
        bool any = false;
        eachChild(d, [&](Dwarf_Die* p) {
            if (dwarf_tag(p) == DW_TAG_formal_parameter) {
                Dwarf_Die pt;
                if (!params.empty()) params += ", ";
                params += typeDie(p, &pt) ? type(&pt, depth + 1)->name : "?";
                any = true;
            } else if (dwarf_tag(p) == DW_TAG_unspecified_parameters) {
                params += any ? ", ..." : "...";
                any = true;
            }
        });
        t->name = (ret ? ret->name : "void") + " (" + (any ? params : "void") + ")";
        t->target = ret;
        break;
    }
    default:
        t->kind = Kind::Unknown;
        t->name = name.empty() ? "<unknown type>" : name;
        t->size = bytes > 0 ? std::uint32_t(bytes) : 0;
        break;
    }
    return t;
}

void SourceValues::Impl::index() const {
    if (indexed || !dwarf()) return;
    indexed = true;
    for (const std::uint64_t unit : file->units()) {
        Dwarf_Die cu;
        if (!die(unit, &cu)) continue;
        const auto walkEnums = [&](auto&& self, Dwarf_Die* parent, int depth) -> void {
            if (depth > 8) return;
            eachChild(parent, [&](Dwarf_Die* c) {
                const int tag = dwarf_tag(c);
                if (tag == DW_TAG_enumeration_type) {
                    const std::uint64_t typeOffset = dwarf_dieoffset(c);
                    eachChild(c, [&](Dwarf_Die* e) {
                        Dwarf_Attribute attr;
                        Dwarf_Sword v = 0;
                        if (dwarf_tag(e) == DW_TAG_enumerator && dwarf_attr(e, DW_AT_const_value, &attr) &&
                            dwarf_formsdata(&attr, &v) == 0)
                            enumerators.emplace(dieName(e), std::make_pair(std::int64_t(v), typeOffset));
                    });
                } else if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block || tag == DW_TAG_typedef) {
                    self(self, c, depth + 1);
                }
            });
        };
        walkEnums(walkEnums, &cu, 0);
        eachChild(&cu, [&](Dwarf_Die* v) {
            if (dwarf_tag(v) != DW_TAG_variable) return;
            if (!dwarf_hasattr(v, DW_AT_location) && !dwarf_hasattr_integrate(v, DW_AT_const_value)) return;
            const std::string n = dieName(v);
            if (!n.empty()) globalsByName.emplace(n, dwarf_dieoffset(v));
        });
    }
}

// ---- locations ---------------------------------------------------------------------------

namespace {

class Locator {
public:
    Locator(const SourceValues::Impl& impl, const SourceFrame* frame, const std::vector<std::uint32_t>& bases,
            const TargetMemory& memory)
        : impl_(impl), frame_(frame), bases_(bases), memory_(memory) {}

    // The runtime address of an ELF link address.
    std::uint32_t relocate(std::uint64_t link) const {
        if (const auto at = impl_.file->hunkOf(link); at && at->first < bases_.size())
            return bases_[at->first] + at->second;
        return std::uint32_t(link);
    }

    // Where the variable DIE's value is at the frame's PC.
    SourceValue locate(Dwarf_Die* var, TypePtr type) const {
        Dwarf_Attribute attr;
        if (dwarf_attr(var, DW_AT_location, &attr)) {
            Dwarf_Op* expr = nullptr;
            std::size_t len = 0;
            const int n = dwarf_getlocation_addr(&attr, lookupPc(), &expr, &len, 1);
            if (n < 0) return SourceValue::unavailable(type, std::string("unreadable location: ") + dwarf_errmsg(-1));
            if (n == 0) return SourceValue::optimizedOut(type);
            return evaluate(expr, len, &attr, type);
        }
        if (dwarf_attr_integrate(var, DW_AT_const_value, &attr)) return constant(&attr, type);
        return SourceValue::optimizedOut(type);
    }

private:
    std::uint64_t lookupPc() const {
        if (!frame_) return 0;
        const auto link = impl_.file->linkAddress(frame_->hunk, frame_->offset).value_or(0);
        // A caller's PC is its return address: the call it made is the byte before.
        return frame_->outer && link > 0 ? link - 1 : link;
    }

    SourceValue constant(Dwarf_Attribute* attr, TypePtr type) const {
        const std::uint32_t size = type ? type->resolved().size : 4;
        Dwarf_Block block;
        if (dwarf_formblock(attr, &block) == 0)
            return SourceValue::ofBytes(type, std::vector<std::uint8_t>(block.data, block.data + block.length));
        Dwarf_Sword s = 0;
        Dwarf_Word u = 0;
        if (dwarf_formsdata(attr, &s) == 0) return SourceValue::ofBytes(type, bigEndianBytes(std::uint64_t(s), size));
        if (dwarf_formudata(attr, &u) == 0) return SourceValue::ofBytes(type, bigEndianBytes(u, size));
        return SourceValue::unavailable(type, "an unreadable constant");
    }

    std::optional<std::uint32_t> frameBase(std::string& why) const {
        if (!frame_ || !frame_->scopeDie) {
            why = "no frame";
            return std::nullopt;
        }
        // The frame base belongs to the function the code was compiled into: an inlined
        // call's variables use the base of the function it sits in.
        Dwarf_Die die;
        if (!impl_.die(frame_->scopeDie, &die)) {
            why = "no function";
            return std::nullopt;
        }
        Dwarf_Die* scopes = nullptr;
        const int n = dwarf_getscopes_die(&die, &scopes);
        std::optional<Dwarf_Die> function;
        for (int i = 0; i < n; ++i)
            if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
                function = scopes[i];
                break;
            }
        std::free(scopes);
        Dwarf_Attribute attr;
        if (!function || !dwarf_attr(&*function, DW_AT_frame_base, &attr)) {
            why = "the function has no frame base";
            return std::nullopt;
        }
        Dwarf_Op* expr = nullptr;
        std::size_t len = 0;
        if (dwarf_getlocation_addr(&attr, lookupPc(), &expr, &len, 1) != 1) {
            why = "no frame base here";
            return std::nullopt;
        }
        // DW_OP_regN names the register whose value is the base.
        if (len == 1 && ((expr[0].atom >= DW_OP_reg0 && expr[0].atom <= DW_OP_reg31) || expr[0].atom == DW_OP_regx)) {
            const int r = expr[0].atom == DW_OP_regx ? int(expr[0].number) : expr[0].atom - DW_OP_reg0;
            if (r >= 16 || !frame_->regs.known(r)) {
                why = "the frame base register is not known in this frame";
                return std::nullopt;
            }
            return frame_->regs[r];
        }
        const SourceValue base = evaluate(expr, len, &attr, nullptr, false);
        if (base.where == SourceValue::Where::Memory) return base.address;
        why = base.why.empty() ? "the frame base cannot be computed" : base.why;
        return std::nullopt;
    }

    SourceValue evaluate(Dwarf_Op* ops, std::size_t n, Dwarf_Attribute* attr, TypePtr type,
                         bool allowFrameBase = true) const {
        std::vector<std::uint64_t> stack;
        struct Piece {
            SourceValue part;
            std::uint32_t size;
        };
        std::vector<Piece> pieces;
        int regLocation = -1; // a register location (DW_OP_regN)
        std::optional<std::vector<std::uint8_t>> implicit;
        bool stackValue = false, empty = true;
        const auto fail = [&](std::string why) { return SourceValue::unavailable(type, std::move(why)); };
        const auto pop = [&](std::uint64_t& v) {
            if (stack.empty()) return false;
            v = stack.back();
            stack.pop_back();
            return true;
        };
        const auto regValue = [&](int r, std::uint64_t& v) {
            if (!frame_ || r < 0 || r >= 16 || !frame_->regs.known(r)) return false;
            v = frame_->regs[r];
            return true;
        };
        std::size_t steps = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (++steps > 10000) return fail("a location expression that does not end");
            const Dwarf_Op& op = ops[i];
            const std::uint8_t a = op.atom;
            std::uint64_t x = 0, y = 0;
            if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
                stack.push_back(a - DW_OP_lit0), empty = false;
                continue;
            }
            if ((a >= DW_OP_reg0 && a <= DW_OP_reg31) || a == DW_OP_regx) {
                regLocation = a == DW_OP_regx ? int(op.number) : a - DW_OP_reg0;
                empty = false;
                continue;
            }
            if ((a >= DW_OP_breg0 && a <= DW_OP_breg31) || a == DW_OP_bregx) {
                const int r = a == DW_OP_bregx ? int(op.number) : a - DW_OP_breg0;
                if (!regValue(r, x)) return fail(std::string("register ") + FrameRegisters::name(r) + " is not known in this frame");
                stack.push_back((x + (a == DW_OP_bregx ? op.number2 : op.number)) & 0xFFFFFFFFu), empty = false;
                continue;
            }
            switch (a) {
            case DW_OP_addr: stack.push_back(relocate(op.number)), empty = false; break;
            case DW_OP_const1u:
            case DW_OP_const2u:
            case DW_OP_const4u:
            case DW_OP_const8u:
            case DW_OP_constu:
            case DW_OP_const1s:
            case DW_OP_const2s:
            case DW_OP_const4s:
            case DW_OP_const8s:
            case DW_OP_consts: stack.push_back(op.number & 0xFFFFFFFFu), empty = false; break;
            case DW_OP_fbreg: {
                if (!allowFrameBase) return fail("a frame base defined by itself");
                std::string why;
                const auto base = frameBase(why);
                if (!base) return fail(why);
                stack.push_back((*base + op.number) & 0xFFFFFFFFu), empty = false;
                break;
            }
            case DW_OP_call_frame_cfa:
                if (!frame_ || !frame_->cfa) return fail("the frame's CFA is not known");
                stack.push_back(*frame_->cfa), empty = false;
                break;
            case DW_OP_dup:
                if (stack.empty()) return fail("a malformed location");
                stack.push_back(stack.back());
                break;
            case DW_OP_drop:
                if (!pop(x)) return fail("a malformed location");
                break;
            case DW_OP_over:
                if (stack.size() < 2) return fail("a malformed location");
                stack.push_back(stack[stack.size() - 2]);
                break;
            case DW_OP_pick:
                if (op.number >= stack.size()) return fail("a malformed location");
                stack.push_back(stack[stack.size() - 1 - op.number]);
                break;
            case DW_OP_swap:
                if (stack.size() < 2) return fail("a malformed location");
                std::swap(stack[stack.size() - 1], stack[stack.size() - 2]);
                break;
            case DW_OP_rot:
                if (stack.size() < 3) return fail("a malformed location");
                std::rotate(stack.end() - 3, stack.end() - 1, stack.end());
                break;
            case DW_OP_deref:
            case DW_OP_deref_size: {
                const std::uint32_t size = a == DW_OP_deref ? 4 : std::uint32_t(op.number);
                if (!pop(x) || size == 0 || size > 4) return fail("a malformed location");
                std::uint8_t b[4];
                if (!memory_.read(std::uint32_t(x), std::span(b, size)))
                    return fail("cannot read memory at " + hex(std::uint32_t(x)));
                std::uint64_t v = 0;
                for (std::uint32_t k = 0; k < size; ++k) v = v << 8 | b[k];
                stack.push_back(v);
                break;
            }
            case DW_OP_plus_uconst:
                if (!pop(x)) return fail("a malformed location");
                stack.push_back((x + op.number) & 0xFFFFFFFFu);
                break;
            case DW_OP_neg:
            case DW_OP_not:
            case DW_OP_abs:
                if (!pop(x)) return fail("a malformed location");
                {
                    const std::int64_t sx = std::int32_t(std::uint32_t(x));
                    stack.push_back((a == DW_OP_neg   ? std::uint64_t(-sx)
                                     : a == DW_OP_not ? ~x
                                                      : std::uint64_t(sx < 0 ? -sx : sx)) &
                                    0xFFFFFFFFu);
                }
                break;
            case DW_OP_plus:
            case DW_OP_minus:
            case DW_OP_mul:
            case DW_OP_div:
            case DW_OP_mod:
            case DW_OP_and:
            case DW_OP_or:
            case DW_OP_xor:
            case DW_OP_shl:
            case DW_OP_shr:
            case DW_OP_shra:
            case DW_OP_eq:
            case DW_OP_ne:
            case DW_OP_lt:
            case DW_OP_gt:
            case DW_OP_le:
            case DW_OP_ge: {
                if (!pop(y) || !pop(x)) return fail("a malformed location");
                // The DWARF stack holds address-sized values: 32 bits on the 68000.
                x &= 0xFFFFFFFFu;
                y &= 0xFFFFFFFFu;
                const auto sx = std::int64_t(std::int32_t(std::uint32_t(x)));
                const auto sy = std::int64_t(std::int32_t(std::uint32_t(y)));
                std::uint64_t r = 0;
                switch (a) {
                case DW_OP_plus: r = x + y; break;
                case DW_OP_minus: r = x - y; break;
                case DW_OP_mul: r = x * y; break;
                case DW_OP_div:
                    if (sy == 0) return fail("a division by zero in a location");
                    r = std::uint64_t(sx / sy);
                    break;
                case DW_OP_mod:
                    if (y == 0) return fail("a division by zero in a location");
                    r = x % y;
                    break;
                case DW_OP_and: r = x & y; break;
                case DW_OP_or: r = x | y; break;
                case DW_OP_xor: r = x ^ y; break;
                case DW_OP_shl: r = y >= 32 ? 0 : x << y; break;
                case DW_OP_shr: r = y >= 32 ? 0 : x >> y; break;
                case DW_OP_shra: r = std::uint64_t(y >= 32 ? (sx < 0 ? -1 : 0) : sx >> y); break;
                case DW_OP_eq: r = sx == sy; break;
                case DW_OP_ne: r = sx != sy; break;
                case DW_OP_lt: r = sx < sy; break;
                case DW_OP_gt: r = sx > sy; break;
                case DW_OP_le: r = sx <= sy; break;
                default: r = sx >= sy; break;
                }
                stack.push_back(r & 0xFFFFFFFFu);
                break;
            }
            case DW_OP_skip:
            case DW_OP_bra: {
                if (a == DW_OP_bra) {
                    if (!pop(x)) return fail("a malformed location");
                    if (x == 0) break;
                }
                const std::uint64_t target = op.offset + 3 + std::uint64_t(std::int16_t(op.number));
                std::size_t j = 0;
                while (j < n && ops[j].offset != target) ++j;
                if (j == n) return fail("a branch out of its location");
                i = j - 1;
                break;
            }
            case DW_OP_nop: break;
            case DW_OP_stack_value: stackValue = true; break;
            case DW_OP_implicit_value: {
                Dwarf_Block block;
                if (!attr || dwarf_getlocation_implicit_value(attr, &op, &block) != 0)
                    return fail("an unreadable implicit value");
                implicit = std::vector<std::uint8_t>(block.data, block.data + block.length);
                empty = false;
                break;
            }
            case DW_OP_piece: {
                Piece piece{SourceValue::optimizedOut(nullptr), std::uint32_t(op.number)};
                if (regLocation >= 0) {
                    piece.part.where = SourceValue::Where::Register;
                    piece.part.reg = regLocation;
                } else if (implicit) {
                    piece.part = SourceValue::ofBytes(nullptr, *implicit);
                } else if (!stack.empty()) {
                    if (stackValue)
                        piece.part = SourceValue::ofBytes(nullptr, bigEndianBytes(stack.back(), piece.size));
                    else
                        piece.part = SourceValue::inMemory(nullptr, std::uint32_t(stack.back()));
                }
                pieces.push_back(std::move(piece));
                stack.clear();
                regLocation = -1;
                implicit.reset();
                stackValue = false;
                empty = true;
                break;
            }
            default:
                // Entry values, implicit pointers and the rest: nothing to read them from
                // here, as gdb reports them.
                return SourceValue::optimizedOut(type);
            }
        }
        const std::uint32_t size = type ? type->resolved().size : 4;
        if (!pieces.empty()) {
            // Put together what the pieces hold; a missing piece makes the whole missing.
            std::vector<std::uint8_t> bytes;
            for (const Piece& p : pieces) {
                std::vector<std::uint8_t> part;
                if (p.part.where == SourceValue::Where::Register) {
                    std::uint64_t v = 0;
                    if (!regValue(p.part.reg, v)) return SourceValue::optimizedOut(type);
                    part = bigEndianBytes(v, std::min<std::uint32_t>(p.size, 4));
                } else if (p.part.where == SourceValue::Where::Memory) {
                    part.resize(p.size);
                    if (!memory_.read(p.part.address, part)) return fail("cannot read memory at " + hex(p.part.address));
                } else if (p.part.where == SourceValue::Where::Bytes) {
                    part = p.part.bytes;
                    part.resize(p.size);
                } else {
                    return SourceValue::optimizedOut(type);
                }
                bytes.insert(bytes.end(), part.begin(), part.end());
            }
            bytes.resize(size);
            return SourceValue::ofBytes(type, std::move(bytes));
        }
        if (regLocation >= 0) {
            SourceValue v;
            v.type = type;
            v.where = SourceValue::Where::Register;
            v.reg = regLocation;
            if (v.reg >= 16) return fail("a floating-point register the 68000 does not have");
            return v;
        }
        if (implicit) {
            implicit->resize(size);
            return SourceValue::ofBytes(type, *implicit);
        }
        if (empty || stack.empty()) return SourceValue::optimizedOut(type);
        if (stackValue) return SourceValue::ofBytes(type, bigEndianBytes(stack.back(), size));
        return SourceValue::inMemory(type, std::uint32_t(stack.back()));
    }

    const SourceValues::Impl& impl_;
    const SourceFrame* frame_;
    const std::vector<std::uint32_t>& bases_;
    const TargetMemory& memory_;
};

} // namespace

// ---- SourceValues -----------------------------------------------------------------------

SourceValues::SourceValues(std::shared_ptr<const DwarfFile> file)
    : impl_(std::make_shared<Impl>()), file_(std::move(file)) {
    impl_->file = file_;
}

TypePtr SourceValues::typeAt(std::uint64_t offset) const {
    Dwarf_Die d;
    if (!impl_->die(offset, &d)) return nullptr;
    return impl_->type(&d);
}

namespace {

// The blocks of a frame holding its PC, the frame's own DIE first, then each nested
// lexical block inward; an inlined call inside ends the walk (its blocks are its frame's).
std::vector<Dwarf_Die> frameBlocks(const SourceValues::Impl& impl, const SourceFrame& frame) {
    std::vector<Dwarf_Die> out;
    Dwarf_Die die;
    if (!frame.scopeDie || !impl.die(frame.scopeDie, &die)) return out;
    auto link = impl.file->linkAddress(frame.hunk, frame.offset);
    if (!link) return out;
    const Dwarf_Addr pc = frame.outer && *link > 0 ? *link - 1 : *link;
    out.push_back(die);
    for (int depth = 0; depth < 64; ++depth) {
        std::optional<Dwarf_Die> next;
        eachChild(&out.back(), [&](Dwarf_Die* c) {
            if (next || dwarf_tag(c) != DW_TAG_lexical_block) return;
            if (dwarf_haspc(c, pc) == 1) next = *c;
        });
        if (!next) break;
        out.push_back(*next);
    }
    return out;
}

} // namespace

namespace {

// The abstract DIEs the concrete instances under `die` stand for, its inlined calls aside:
// an inlined or out-of-line copy names its variables by DW_AT_abstract_origin, and one the
// compiler dropped from the copy altogether appears in the abstract tree alone.
void concreteOrigins(Dwarf_Die* die, std::vector<std::uint64_t>& out, int depth = 0) {
    if (depth > 64) return;
    eachChild(die, [&](Dwarf_Die* c) {
        if (const auto origin = originOf(c)) out.push_back(origin);
        if (dwarf_tag(c) == DW_TAG_lexical_block) concreteOrigins(c, out, depth + 1);
    });
}

} // namespace

std::vector<SourceVariable> SourceValues::parameters(const SourceFrame& frame, const TargetMemory& memory) const {
    std::vector<SourceVariable> out;
    const auto blocks = frameBlocks(*impl_, frame);
    if (blocks.empty()) return out;
    Locator loc(*impl_, &frame, frame.bases, memory);
    Dwarf_Die fn = blocks.front();
    std::vector<std::uint64_t> origins; // each parameter's abstract DIE, 0 for none
    eachChild(&fn, [&](Dwarf_Die* p) {
        if (dwarf_tag(p) != DW_TAG_formal_parameter) return;
        SourceVariable v;
        v.name = dieName(p);
        v.parameter = true;
        v.value = loc.locate(p, impl_->typeOf(p));
        out.push_back(std::move(v));
        origins.push_back(originOf(p));
    });
    // Parameters of an inlined or cloned copy the compiler dropped altogether: optimized out.
    if (const auto origin = originOf(&fn)) {
        std::vector<std::uint64_t> seen;
        concreteOrigins(&fn, seen);
        Dwarf_Die abstract;
        std::vector<std::uint64_t> order; // the declaration's order
        if (impl_->die(origin, &abstract))
            eachChild(&abstract, [&](Dwarf_Die* p) {
                if (dwarf_tag(p) != DW_TAG_formal_parameter) return;
                order.push_back(dwarf_dieoffset(p));
                if (std::find(seen.begin(), seen.end(), dwarf_dieoffset(p)) != seen.end()) return;
                out.push_back({dieName(p), SourceValue::optimizedOut(impl_->typeOf(p)), true});
                origins.push_back(dwarf_dieoffset(p));
            });
        // A copy may list its parameters in another order than the declaration: shown in
        // the declaration's.
        std::vector<std::size_t> index(out.size());
        for (std::size_t i = 0; i < index.size(); ++i) index[i] = i;
        const auto rank = [&](std::size_t i) {
            const auto at = std::find(order.begin(), order.end(), origins[i]);
            return std::size_t(at - order.begin());
        };
        std::stable_sort(index.begin(), index.end(), [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
        std::vector<SourceVariable> sorted;
        sorted.reserve(out.size());
        for (const std::size_t i : index) sorted.push_back(std::move(out[i]));
        out = std::move(sorted);
    }
    return out;
}

std::vector<SourceVariable> SourceValues::locals(const SourceFrame& frame, const TargetMemory& memory) const {
    std::vector<SourceVariable> out;
    auto blocks = frameBlocks(*impl_, frame);
    if (blocks.empty()) return out;
    Locator loc(*impl_, &frame, frame.bases, memory);
    std::vector<std::uint64_t> seen;
    concreteOrigins(&blocks.front(), seen);
    // Innermost block first, as gdb lists them.
    for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
        eachChild(&*it, [&](Dwarf_Die* v) {
            if (dwarf_tag(v) != DW_TAG_variable) return;
            if (flag(v, DW_AT_declaration) || flag(v, DW_AT_external)) return; // an extern named inside
            SourceVariable var;
            var.name = dieName(v);
            if (var.name.empty()) return;
            var.value = loc.locate(v, impl_->typeOf(v));
            out.push_back(std::move(var));
        });
        if (const auto origin = originOf(&*it)) {
            Dwarf_Die abstract;
            if (impl_->die(origin, &abstract))
                eachChild(&abstract, [&](Dwarf_Die* v) {
                    if (dwarf_tag(v) != DW_TAG_variable) return;
                    if (std::find(seen.begin(), seen.end(), dwarf_dieoffset(v)) != seen.end()) return;
                    const std::string name = dieName(v);
                    if (!name.empty()) out.push_back({name, SourceValue::optimizedOut(impl_->typeOf(v)), false});
                });
        }
    }
    return out;
}

std::vector<SourceVariable> SourceValues::globals(const SourceFrame& frame, const TargetMemory& memory) const {
    std::vector<SourceVariable> out;
    const auto link = impl_->file->linkAddress(frame.hunk, frame.offset);
    if (!link) return out;
    const auto unit = impl_->file->unitAt(*link);
    Dwarf_Die cu;
    if (!unit || !impl_->die(*unit, &cu)) return out;
    Locator loc(*impl_, nullptr, frame.bases, memory);
    eachChild(&cu, [&](Dwarf_Die* v) {
        if (dwarf_tag(v) != DW_TAG_variable) return;
        if (!dwarf_hasattr(v, DW_AT_location) && !dwarf_hasattr_integrate(v, DW_AT_const_value)) return;
        SourceVariable var;
        var.name = dieName(v);
        if (var.name.empty()) return;
        var.value = loc.locate(v, impl_->typeOf(v));
        out.push_back(std::move(var));
    });
    return out;
}

std::optional<SourceVariable> SourceValues::global(const std::string& name, const std::vector<std::uint32_t>& bases,
                                                   const TargetMemory& memory) const {
    impl_->index();
    const auto range = impl_->globalsByName.equal_range(name);
    std::optional<Dwarf_Die> best;
    for (auto it = range.first; it != range.second; ++it) {
        Dwarf_Die v;
        if (!impl_->die(it->second, &v)) continue;
        if (!best || (flag(&v, DW_AT_external) && !flag(&*best, DW_AT_external))) best = v;
    }
    if (!best) return std::nullopt;
    Locator loc(*impl_, nullptr, bases, memory);
    return SourceVariable{name, loc.locate(&*best, impl_->typeOf(&*best)), false};
}

std::optional<SourceVariable> SourceValues::lookup(const SourceFrame& frame, const TargetMemory& memory,
                                                   const std::string& name) const {
    for (auto& v : locals(frame, memory))
        if (v.name == name) return v;
    for (auto& v : parameters(frame, memory))
        if (v.name == name) return v;
    for (auto& v : globals(frame, memory))
        if (v.name == name) return v;
    if (auto g = global(name, frame.bases, memory)) return g;
    impl_->index();
    const auto e = impl_->enumerators.find(name);
    if (e != impl_->enumerators.end()) {
        const TypePtr t = typeAt(e->second.second);
        return SourceVariable{name, SourceValue::ofInteger(t, e->second.first), false};
    }
    // A function: its code, at its entry, as gdb reads `main` or `&main`.
    if (frame.info)
        for (const std::uint32_t scope : frame.info->functionsNamed(name)) {
            const DebugScope& fn = frame.info->scopes()[scope];
            const auto entry = frame.info->entryOf(scope);
            if (!entry || entry->first >= frame.bases.size()) continue;
            TypePtr t = fn.die ? typeAt(fn.die) : nullptr;
            if (!t || t->kind != SourceType::Kind::Function) {
                auto made = std::make_shared<SourceType>();
                made->kind = SourceType::Kind::Function;
                made->name = "void (void)";
                t = made;
            }
            return SourceVariable{name, SourceValue::inMemory(t, (frame.bases[entry->first] + entry->second) & 0xFFFFFF), false};
        }
    return std::nullopt;
}

// ---- reading -------------------------------------------------------------------------------

std::optional<std::vector<std::uint8_t>> SourceValues::read(const SourceValue& v, const SourceFrame& frame,
                                                           const TargetMemory& memory, std::string* why) const {
    const auto failWith = [&](std::string w) -> std::optional<std::vector<std::uint8_t>> {
        if (why) *why = std::move(w);
        return std::nullopt;
    };
    const std::uint32_t size = v.type ? v.type->resolved().size : 4;
    std::vector<std::uint8_t> raw;
    const std::uint32_t span = v.bitSize ? (v.bitOffset + v.bitSize + 7) / 8 : size;
    switch (v.where) {
    case SourceValue::Where::Memory:
        if (span > (1u << 20)) return failWith("too large to read");
        raw.resize(span);
        if (!memory.read(v.address, raw)) return failWith("cannot read memory at " + hex(v.address));
        break;
    case SourceValue::Where::Register: {
        if (v.reg < 0 || v.reg >= FrameRegisters::kCount || !frame.regs.known(v.reg))
            return failWith(std::string("register ") + FrameRegisters::name(v.reg) + " is not known in this frame");
        if (span > 4) return failWith("a value larger than a register");
        raw = bigEndianBytes(frame.regs[v.reg], 4);
        if (!v.bitSize) raw.erase(raw.begin(), raw.end() - span);
        break;
    }
    case SourceValue::Where::Bytes: raw = v.bytes; break;
    case SourceValue::Where::OptimizedOut: return failWith("optimized out");
    case SourceValue::Where::Unavailable: return failWith(v.why);
    }
    if (!v.bitSize) {
        raw.resize(size);
        return raw;
    }
    // A bit-field: bitSize bits from bitOffset (most significant first), as the member's
    // type, sign-extended if it is signed.
    std::uint64_t bits = 0;
    for (std::uint8_t b : raw) bits = bits << 8 | b;
    const std::uint32_t shift = std::uint32_t(raw.size()) * 8 - v.bitOffset - v.bitSize;
    std::uint64_t field = (bits >> shift) & (v.bitSize >= 64 ? ~0ull : ((1ull << v.bitSize) - 1));
    const bool isSigned = v.type && v.type->resolved().isSigned;
    if (isSigned && v.bitSize < 64 && (field >> (v.bitSize - 1)) & 1) field |= ~0ull << v.bitSize;
    return bigEndianBytes(field, std::max<std::uint32_t>(size, 1));
}

std::optional<std::int64_t> SourceValues::integer(const SourceValue& v, const SourceFrame& frame,
                                                  const TargetMemory& memory, std::string* why) const {
    const SourceType& t = v.type ? v.type->resolved() : *baseType("int");
    switch (t.kind) {
    case Kind::Integer:
    case Kind::Boolean:
    case Kind::Enum:
    case Kind::Pointer: break;
    default:
        if (why) *why = "not a number: " + (v.type ? v.type->name : std::string("?"));
        return std::nullopt;
    }
    const auto bytes = read(v, frame, memory, why);
    if (!bytes) return std::nullopt;
    return bigEndianInteger(*bytes, t.kind != Kind::Pointer && t.isSigned);
}

std::uint32_t SourceValues::childCount(const SourceValue& v) const {
    if (!v.type) return 0;
    const SourceType& t = v.type->resolved();
    switch (t.kind) {
    case Kind::Struct:
    case Kind::Union: return std::uint32_t(t.members.size());
    case Kind::Array: return t.count;
    case Kind::Pointer: return v.type->expandable() ? 1 : 0;
    default: return 0;
    }
}

namespace {

// A part of a value at a byte offset: in memory, or cut from the value's own bytes.
std::optional<SourceValue> partOf(const SourceValues& values, const SourceValue& v, const SourceFrame& frame,
                                  const TargetMemory& memory, std::uint32_t offset, TypePtr type,
                                  std::uint32_t bitOffset = 0, std::uint32_t bitSize = 0) {
    SourceValue out;
    if (v.where == SourceValue::Where::Memory) {
        out = SourceValue::inMemory(std::move(type), v.address + offset);
    } else if (v.where == SourceValue::Where::OptimizedOut) {
        return SourceValue::optimizedOut(std::move(type));
    } else {
        std::string why;
        const auto bytes = values.read(v, frame, memory, &why);
        if (!bytes) return SourceValue::unavailable(std::move(type), why);
        const std::uint32_t size = type ? type->resolved().size : 0;
        const std::uint32_t span = bitSize ? (bitOffset + bitSize + 7) / 8 : size;
        if (offset + span > bytes->size()) return SourceValue::unavailable(std::move(type), "beyond the value");
        out = SourceValue::ofBytes(std::move(type),
                                   std::vector<std::uint8_t>(bytes->begin() + offset, bytes->begin() + offset + span));
    }
    out.bitOffset = bitOffset;
    out.bitSize = bitSize;
    return out;
}

} // namespace

std::optional<SourceValue> SourceValues::member(const SourceValue& v, const std::string& name, const SourceFrame& frame,
                                                const TargetMemory& memory) const {
    if (!v.type) return std::nullopt;
    const SourceType& t = v.type->resolved();
    if (t.kind != Kind::Struct && t.kind != Kind::Union) return std::nullopt;
    for (const auto& m : t.members) {
        if (m.name == name) return partOf(*this, v, frame, memory, m.offset, m.type, m.bitOffset, m.bitSize);
        // An anonymous struct or union's members are the outer one's.
        if (m.name.empty() && m.type) {
            const auto inner = partOf(*this, v, frame, memory, m.offset, m.type);
            if (inner)
                if (auto found = member(*inner, name, frame, memory)) return found;
        }
    }
    return std::nullopt;
}

std::optional<SourceValue> SourceValues::element(const SourceValue& v, std::int64_t index, const SourceFrame& frame,
                                                 const TargetMemory& memory, std::string* why) const {
    if (!v.type) return std::nullopt;
    const SourceType& t = v.type->resolved();
    if (t.kind == Kind::Array) {
        const std::uint32_t size = t.target ? t.target->resolved().size : 0;
        if (v.where == SourceValue::Where::Memory)
            return SourceValue::inMemory(t.target, v.address + std::uint32_t(index * std::int64_t(size)));
        if (index < 0 || (t.count && index >= t.count)) {
            if (why) *why = "index " + std::to_string(index) + " outside the array";
            return std::nullopt;
        }
        return partOf(*this, v, frame, memory, std::uint32_t(index) * size, t.target);
    }
    if (t.kind == Kind::Pointer) {
        const auto p = integer(v, frame, memory, why);
        if (!p) return std::nullopt;
        const std::uint32_t size = t.target ? t.target->resolved().size : 0;
        if (size == 0) {
            if (why) *why = "cannot index a pointer to " + (t.target ? t.target->name : std::string("void"));
            return std::nullopt;
        }
        return SourceValue::inMemory(t.target, std::uint32_t(*p + index * std::int64_t(size)));
    }
    if (why) *why = "not an array or a pointer: " + v.type->name;
    return std::nullopt;
}

std::optional<SourceValue> SourceValues::deref(const SourceValue& v, const SourceFrame& frame,
                                               const TargetMemory& memory, std::string* why) const {
    if (!v.type) return std::nullopt;
    const SourceType& t = v.type->resolved();
    if (t.kind == Kind::Array) return element(v, 0, frame, memory, why);
    if (t.kind != Kind::Pointer) {
        if (why) *why = "not a pointer: " + v.type->name;
        return std::nullopt;
    }
    const auto p = integer(v, frame, memory, why);
    if (!p) return std::nullopt;
    if (t.target && t.target->resolved().kind == Kind::Void) {
        if (why) *why = "cannot follow a void pointer";
        return std::nullopt;
    }
    return SourceValue::inMemory(t.target, std::uint32_t(*p));
}

std::vector<SourceVariable> SourceValues::children(const SourceVariable& parent, const SourceFrame& frame,
                                                   const TargetMemory& memory, std::uint32_t start,
                                                   std::uint32_t count) const {
    std::vector<SourceVariable> out;
    const SourceValue& v = parent.value;
    if (!v.type) return out;
    const SourceType& t = v.type->resolved();
    if (t.kind == Kind::Struct || t.kind == Kind::Union) {
        for (const auto& m : t.members) {
            auto part = partOf(*this, v, frame, memory, m.offset, m.type, m.bitOffset, m.bitSize);
            if (part) out.push_back({m.name.empty() ? "<anonymous>" : m.name, *part, false});
        }
    } else if (t.kind == Kind::Array) {
        const std::uint64_t end = std::min<std::uint64_t>(std::uint64_t(start) + count, t.count);
        for (std::uint64_t i = start; i < end; ++i) {
            std::string why;
            auto e = element(v, std::int64_t(i), frame, memory, &why);
            out.push_back({"[" + std::to_string(i) + "]", e ? *e : SourceValue::unavailable(t.target, why), false});
        }
    } else if (t.kind == Kind::Pointer && v.type->expandable()) {
        std::string why;
        auto d = deref(v, frame, memory, &why);
        out.push_back({"*" + parent.name, d ? *d : SourceValue::unavailable(t.target, why), false});
    }
    return out;
}

namespace {

// A char array as gdb prints one: every byte but a last NUL, runs of more than ten of one
// byte as `'c' <repeats N times>`, at most kMaxString of them.
std::string charArrayText(const std::vector<std::uint8_t>& bytes) {
    constexpr std::size_t kRepeats = 10;
    std::size_t end = bytes.size();
    const bool cut = end > kMaxString;
    if (cut) end = kMaxString;
    else if (end > 0 && bytes[end - 1] == 0) --end;
    std::string out, quoted;
    bool open = false;
    const auto segment = [&](const std::string& part) {
        if (!out.empty()) out.append(", ");
        out.append(part);
    };
    for (std::size_t i = 0; i < end;) {
        std::size_t run = 1;
        while (i + run < end && bytes[i + run] == bytes[i]) ++run;
        if (run > kRepeats) {
            if (open) segment(std::string(1, '"').append(quoted).append(1, '"'));
            open = false;
            quoted.clear();
            std::string repeated(1, '\'');
            repeated.append(escapeChar(bytes[i], '\'')).append("' <repeats ").append(std::to_string(run)).append(" times>");
            segment(repeated);
        } else {
            for (std::size_t k = 0; k < run; ++k) quoted += escapeChar(bytes[i], '"');
            open = true;
        }
        i += run;
    }
    if (open || out.empty()) segment(std::string(1, '"').append(quoted).append(1, '"'));
    if (cut) out.append("...");
    return out;
}

// ` <name+offset>` for an address in a function or data object of the frame's program, as
// gdb annotates a pointer; empty elsewhere.
std::string symbolText(const SourceFrame& frame, std::uint32_t address) {
    if (!frame.info) return {};
    const auto& hunks = frame.info->hunks();
    for (std::uint32_t h = 0; h < hunks.size() && h < frame.bases.size(); ++h) {
        if (address < frame.bases[h] || address - frame.bases[h] >= hunks[h].size) continue;
        const std::uint32_t offset = address - frame.bases[h];
        const DebugScope* scope = frame.info->function(frame.info->lookup(h, offset));
        if (!scope || scope->name.empty()) return {};
        const auto entry = frame.info->entryOf(std::uint32_t(scope - frame.info->scopes().data()));
        if (!entry || entry->first != h || entry->second > offset) return " <" + scope->name + ">";
        const std::uint32_t into = offset - entry->second;
        return " <" + scope->name + (into ? "+" + std::to_string(into) : std::string()) + ">";
    }
    return {};
}

} // namespace

std::string SourceValues::format(const SourceValue& v, const SourceFrame& frame, const TargetMemory& memory) const {
    if (v.where == SourceValue::Where::OptimizedOut) return "<optimized out>";
    if (v.where == SourceValue::Where::Unavailable) return "<unavailable: " + v.why + ">";
    if (!v.type) return "?";
    const SourceType& t = v.type->resolved();
    std::string why;
    const auto numberText = [&](std::int64_t n) { return std::to_string(n); };
    switch (t.kind) {
    case Kind::Void: return "void";
    case Kind::Integer:
    case Kind::Boolean:
    case Kind::Enum: {
        const auto n = integer(v, frame, memory, &why);
        if (!n) return "<" + why + ">";
        if (t.kind == Kind::Boolean) return *n ? "true" : "false";
        if (t.kind == Kind::Enum) {
            for (const auto& [name, value] : t.enumerators)
                if (value == *n) return name;
            // A combination of flags, as gdb shows it.
            std::int64_t rest = *n;
            std::string text;
            for (const auto& [name, value] : t.enumerators)
                if (value > 0 && (value & (value - 1)) == 0 && (rest & value) == value) {
                    text += (text.empty() ? "" : " | ") + name;
                    rest &= ~value;
                }
            if (!text.empty() && rest == 0) return "(" + text + ")";
            return numberText(*n);
        }
        if (t.isChar) return numberText(*n) + " '" + escapeChar(std::uint8_t(*n), '\'') + "'";
        return numberText(*n);
    }
    case Kind::Float: {
        const auto bytes = read(v, frame, memory, &why);
        return bytes ? floatText(*bytes) : "<" + why + ">";
    }
    case Kind::Pointer: {
        const auto n = integer(v, frame, memory, &why);
        if (!n) return "<" + why + ">";
        const std::uint32_t p = std::uint32_t(*n);
        std::string text = hexValue(p);
        if (p && t.target) {
            const SourceType& to = t.target->resolved();
            if (to.kind == Kind::Integer && to.isChar && to.size == 1) {
                std::string s;
                bool ended = false;
                for (std::uint32_t i = 0; i < kMaxString; ++i) {
                    std::uint8_t c = 0;
                    if (!memory.read(p + i, std::span(&c, 1))) break;
                    if (c == 0) {
                        ended = true;
                        break;
                    }
                    s += escapeChar(c, '"');
                }
                text += " \"" + s + (ended ? "\"" : "\"...");
            } else {
                text += symbolText(frame, p);
            }
        }
        return text;
    }
    case Kind::Struct:
    case Kind::Union: {
        std::string text = "{";
        bool first = true;
        for (const auto& m : t.members) {
            const auto part = partOf(*this, v, frame, memory, m.offset, m.type, m.bitOffset, m.bitSize);
            if (!first) text += ", ";
            first = false;
            std::string value = "?";
            if (part) {
                const SourceType& mt = m.type ? m.type->resolved() : t;
                const SourceType* mel = mt.kind == Kind::Array && mt.target ? &mt.target->resolved() : nullptr;
                const bool chars = mel && mel->kind == Kind::Integer && mel->isChar && mel->size == 1;
                value = (mt.kind == Kind::Struct || mt.kind == Kind::Union || (mt.kind == Kind::Array && !chars)) &&
                                text.size() > kMaxSummary / 2
                            ? "{...}"
                            : format(*part, frame, memory);
            }
            text += (m.name.empty() ? std::string() : m.name + " = ") + value;
            if (text.size() > kMaxSummary) {
                text += "...";
                break;
            }
        }
        return text + "}";
    }
    case Kind::Array: {
        const SourceType* el = t.target ? &t.target->resolved() : nullptr;
        if (el && el->kind == Kind::Integer && el->isChar && el->size == 1) {
            const auto bytes = read(v, frame, memory, &why);
            if (!bytes) return "<" + why + ">";
            return charArrayText(*bytes);
        }
        // As gdb prints an array: a run of more than ten equal elements as `value <repeats
        // N times>` (a run counts as ten), at most 200 shown; cut at the summary's length.
        constexpr std::uint32_t kScan = kMaxString * 10; // elements read at most
        std::string text = "{";
        std::string last;
        std::uint32_t run = 0, emitted = 0;
        const auto flush = [&] {
            if (!run) return;
            const auto put = [&](const std::string& part) {
                if (emitted) text += ", ";
                text += part;
            };
            if (run > 10) {
                put(last + " <repeats " + std::to_string(run) + " times>");
                emitted += 10;
            } else {
                for (std::uint32_t k = 0; k < run; ++k, ++emitted) put(last);
            }
            run = 0;
        };
        std::uint32_t i = 0;
        const std::uint32_t scan = std::min(t.count, kScan);
        for (; i < scan && emitted < kMaxString && text.size() <= kMaxSummary; ++i) {
            const auto e = element(v, i, frame, memory, &why);
            std::string item = e ? format(*e, frame, memory) : "?";
            if (run && item == last) {
                ++run;
                continue;
            }
            flush();
            last = std::move(item);
            run = 1;
        }
        flush();
        if (text.size() > kMaxSummary + 64) return text.substr(0, kMaxSummary) + "...}";
        if (i < t.count) text += "...";
        return text + "}";
    }
    case Kind::Function:
        if (v.where == SourceValue::Where::Memory)
            return "{" + t.name + "} " + hexValue(v.address) + symbolText(frame, v.address);
        return "{" + t.name + "}";
    default: {
        const auto bytes = read(v, frame, memory, &why);
        if (!bytes) return "<" + why + ">";
        std::string text = "0x";
        for (std::uint8_t b : *bytes) {
            char h[4];
            std::snprintf(h, sizeof h, "%02x", b);
            text += h;
        }
        return text;
    }
    }
}

std::optional<SourceValues::RegisterWrite> SourceValues::write(const SourceValue& v, const SourceFrame& frame,
                                                             TargetMemory& memory,
                                                             const std::vector<std::uint8_t>& bytes) const {
    const std::uint32_t size = v.type ? v.type->resolved().size : 4;
    if (bytes.size() != size) throw DebugInfoError("the new value has the wrong size");
    // The bits a bit-field replaces, merged into what is there.
    const auto merged = [&](std::vector<std::uint8_t> raw) {
        if (!v.bitSize) {
            std::copy(bytes.begin(), bytes.end(), raw.end() - std::ptrdiff_t(bytes.size()));
            return raw;
        }
        std::uint64_t bits = 0;
        for (std::uint8_t b : raw) bits = bits << 8 | b;
        const std::uint32_t shift = std::uint32_t(raw.size()) * 8 - v.bitOffset - v.bitSize;
        const std::uint64_t mask = (v.bitSize >= 64 ? ~0ull : ((1ull << v.bitSize) - 1)) << shift;
        const std::uint64_t value = std::uint64_t(bigEndianInteger(bytes, false)) << shift;
        bits = (bits & ~mask) | (value & mask);
        return bigEndianBytes(bits, std::uint32_t(raw.size()));
    };
    switch (v.where) {
    case SourceValue::Where::Memory: {
        std::vector<std::uint8_t> raw(v.bitSize ? (v.bitOffset + v.bitSize + 7) / 8 : size);
        if (v.bitSize && !memory.read(v.address, raw)) throw DebugInfoError("cannot read memory at " + hex(v.address));
        const auto out = merged(std::move(raw));
        if (!memory.write(v.address, out)) throw DebugInfoError("cannot write memory at " + hex(v.address));
        return std::nullopt;
    }
    case SourceValue::Where::Register: {
        if (v.reg < 0 || v.reg >= 16 || !frame.regs.known(v.reg))
            throw DebugInfoError(std::string("register ") + FrameRegisters::name(v.reg) + " is not known in this frame");
        const auto value = std::uint32_t(bigEndianInteger(merged(bigEndianBytes(frame.regs[v.reg], 4)), false));
        switch (frame.regs.home[std::size_t(v.reg)]) {
        case FrameRegisters::Home::Cpu: return RegisterWrite{v.reg, value};
        case FrameRegisters::Home::Memory:
            if (!memory.write(frame.regs.slot[std::size_t(v.reg)], bigEndianBytes(value, 4)))
                throw DebugInfoError("cannot write the register's save slot");
            return std::nullopt;
        default: throw DebugInfoError("its register is not saved anywhere in this frame");
        }
    }
    case SourceValue::Where::Bytes: throw DebugInfoError("it is a computed value, not stored anywhere");
    case SourceValue::Where::OptimizedOut: throw DebugInfoError("it is optimized out here");
    case SourceValue::Where::Unavailable: throw DebugInfoError(v.why);
    }
    return std::nullopt;
}

} // namespace copperline
