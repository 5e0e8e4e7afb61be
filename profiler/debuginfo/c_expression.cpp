// SPDX-License-Identifier: GPL-3.0-or-later
// The debugger's C expressions: a recursive-descent parser into a tree, evaluated against a
// frame's variables.

#include "profiler/debuginfo/c_expression.h"

#include "emu/hex.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <vector>

namespace copperline {

namespace {

using Kind = SourceType::Kind;

enum class Op {
    Number,   // value
    Name,     // name
    Register, // reg
    Member,   // a.name
    Arrow,    // a->name
    Index,    // a[b]
    Deref,    // *a
    Address,  // &a
    Negate,
    Plus,
    Not,
    Complement,
    Cast,   // (type) a
    SizeOf, // sizeof a, or of type
    Binary, // a op b
};

constexpr int kMaxDepth = 200;

} // namespace

struct CExpression::Node {
    Op op = Op::Number;
    std::string name;    // Name, Member, Arrow; Binary: the operator
    std::int64_t value = 0;
    bool isUnsigned = false, isChar = false;
    int reg = -1;
    TypePtr type; // Cast, SizeOf of a type
    std::unique_ptr<Node> a, b;
    std::size_t at = 0; // where it starts in the text
};

namespace {

using Node = CExpression::Node;

class Parser {
public:
    explicit Parser(const std::string& text) : s_(text) {}

    std::unique_ptr<Node> parse() {
        auto n = binary(0, 0);
        skip();
        if (p_ != s_.size()) error("unexpected '" + std::string(1, s_[p_]) + "'");
        return n;
    }

private:
    [[noreturn]] void error(const std::string& what) const {
        throw ExpressionError("cannot parse \"" + s_ + "\": " + what + " at column " + std::to_string(p_ + 1));
    }
    void skip() {
        while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_]))) ++p_;
    }
    bool peek(const char* t) {
        skip();
        return s_.compare(p_, std::strlen(t), t) == 0;
    }
    bool eat(const char* t) {
        if (!peek(t)) return false;
        p_ += std::strlen(t);
        return true;
    }
    static bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
    std::string identifier() {
        skip();
        const std::size_t start = p_;
        if (p_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_'))
            while (p_ < s_.size() && identChar(s_[p_])) ++p_;
        return s_.substr(start, p_ - start);
    }
    std::unique_ptr<Node> make(Op op, std::size_t at) {
        auto n = std::make_unique<Node>();
        n->op = op;
        n->at = at;
        return n;
    }

    // Binary operators by precedence, loosest first.
    static int precedence(const std::string& op) {
        static const char* const levels[][5] = {
            {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<=", ">=", "<", ">"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};
        for (int level = 0; level < 10; ++level)
            for (const char* o : levels[level])
                if (o && op == o) return level;
        return -1;
    }
    std::string binaryOperator() {
        skip();
        static const char* const ops[] = {"||", "&&", "==", "!=", "<=", ">=", "<<", ">>", "|", "^",
                                          "&",  "<",  ">",  "+",  "-",  "*",  "/",  "%"};
        for (const char* o : ops)
            if (s_.compare(p_, std::strlen(o), o) == 0) return o;
        return {};
    }

    std::unique_ptr<Node> binary(int minLevel, int depth) {
        if (depth > kMaxDepth) error("nested too deep");
        auto left = unary(depth + 1);
        for (;;) {
            const std::string op = binaryOperator();
            const int level = op.empty() ? -1 : precedence(op);
            if (level < minLevel) return left;
            const std::size_t at = p_;
            p_ += op.size();
            auto right = binary(level + 1, depth + 1);
            auto n = make(Op::Binary, at);
            n->name = op;
            n->a = std::move(left);
            n->b = std::move(right);
            left = std::move(n);
        }
    }

    // A type name in a cast or sizeof: base type words, then any '*'s. nullptr (nothing
    // consumed) when the text there is no type.
    TypePtr typeName() {
        const std::size_t start = p_;
        std::string words;
        for (;;) {
            const std::size_t before = p_;
            const std::string w = identifier();
            static const char* const known[] = {"unsigned", "signed", "char", "short", "int", "long",
                                                "void",     "float",  "double", "_Bool", "bool"};
            if (!w.empty() && std::find_if(std::begin(known), std::end(known),
                                           [&](const char* k) { return w == k; }) != std::end(known)) {
                words += (words.empty() ? "" : " ") + w;
                continue;
            }
            p_ = before;
            break;
        }
        if (words.empty()) {
            p_ = start;
            return nullptr;
        }
        TypePtr t = baseType(words);
        if (!t) error("no base type \"" + words + "\"");
        while (eat("*")) t = pointerTo(t);
        return t;
    }

    std::unique_ptr<Node> unary(int depth) {
        if (depth > kMaxDepth) error("nested too deep");
        skip();
        const std::size_t at = p_;
        const auto prefix = [&](Op op) {
            auto n = make(op, at);
            n->a = unary(depth + 1);
            return n;
        };
        if (eat("sizeof")) {
            auto n = make(Op::SizeOf, at);
            const std::size_t back = p_;
            if (eat("(")) {
                if (TypePtr t = typeName()) {
                    if (!eat(")")) error("')' expected");
                    n->type = t;
                    return n;
                }
                p_ = back;
            }
            n->a = unary(depth + 1);
            return n;
        }
        if (peek("-") && !peek("->")) return ++p_, prefix(Op::Negate);
        if (peek("+")) return ++p_, prefix(Op::Plus);
        if (peek("!") && !peek("!=")) return ++p_, prefix(Op::Not);
        if (eat("~")) return prefix(Op::Complement);
        if (peek("*")) return ++p_, prefix(Op::Deref);
        if (peek("&") && !peek("&&")) return ++p_, prefix(Op::Address);
        if (peek("(")) {
            const std::size_t back = p_;
            ++p_;
            if (TypePtr t = typeName()) {
                if (!eat(")")) error("')' expected after the type");
                auto n = make(Op::Cast, at);
                n->type = t;
                n->a = unary(depth + 1);
                return n;
            }
            p_ = back;
        }
        return postfix(depth + 1);
    }

    std::unique_ptr<Node> postfix(int depth) {
        auto n = primary(depth);
        for (;;) {
            skip();
            const std::size_t at = p_;
            if (eat("[")) {
                auto i = make(Op::Index, at);
                i->a = std::move(n);
                i->b = binary(0, depth + 1);
                if (!eat("]")) error("']' expected");
                n = std::move(i);
            } else if (eat("->") || (peek(".") && (++p_, true))) {
                const bool arrow = s_.compare(at, 2, "->") == 0;
                auto m = make(arrow ? Op::Arrow : Op::Member, at);
                m->name = identifier();
                if (m->name.empty()) error("a member name expected");
                m->a = std::move(n);
                n = std::move(m);
            } else {
                return n;
            }
        }
    }

    std::unique_ptr<Node> primary(int depth) {
        skip();
        const std::size_t at = p_;
        if (p_ >= s_.size()) error("an operand expected");
        const char c = s_[p_];
        if (eat("(")) {
            auto n = binary(0, depth + 1);
            if (!eat(")")) error("')' expected");
            return n;
        }
        if (std::isdigit(static_cast<unsigned char>(c))) return number(at);
        if (c == '\'') return character(at);
        if (c == '$') {
            ++p_;
            const std::string r = identifier();
            auto n = make(Op::Register, at);
            for (int i = 0; i < FrameRegisters::kCount; ++i)
                if (r == FrameRegisters::name(i)) n->reg = i;
            if (r == "sp") n->reg = 15;
            if (r == "fp") n->reg = 14;
            if (n->reg < 0) error("no register $" + r);
            return n;
        }
        const std::string name = identifier();
        if (name.empty()) error("unexpected '" + std::string(1, c) + "'");
        auto n = make(Op::Name, at);
        n->name = name;
        return n;
    }

    std::unique_ptr<Node> number(std::size_t at) {
        std::size_t end = p_;
        std::uint64_t v = 0;
        int base = 10;
        if (s_.compare(p_, 2, "0x") == 0 || s_.compare(p_, 2, "0X") == 0) {
            base = 16;
            end += 2;
        } else if (s_[p_] == '0' && p_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_ + 1]))) {
            base = 8;
            end += 1;
        }
        const std::size_t digits = end;
        for (; end < s_.size(); ++end) {
            const char ch = char(std::tolower(static_cast<unsigned char>(s_[end])));
            int d = -1;
            if (ch >= '0' && ch <= '9') d = ch - '0';
            else if (ch >= 'a' && ch <= 'f') d = 10 + ch - 'a';
            if (d < 0 || d >= base) break;
            if (v > (~0ull - std::uint64_t(d)) / std::uint64_t(base)) {
                p_ = at;
                error("a number too large");
            }
            v = v * std::uint64_t(base) + std::uint64_t(d);
        }
        if (end == digits && base == 16) {
            p_ = end;
            error("hex digits expected");
        }
        auto n = make(Op::Number, at);
        while (end < s_.size() && (s_[end] == 'u' || s_[end] == 'U' || s_[end] == 'l' || s_[end] == 'L')) {
            if (s_[end] == 'u' || s_[end] == 'U') n->isUnsigned = true;
            ++end;
        }
        if (end < s_.size() && identChar(s_[end])) {
            p_ = end;
            error("a malformed number");
        }
        p_ = end;
        n->value = std::int64_t(v);
        if (v > 0x7FFFFFFF) n->isUnsigned = true;
        return n;
    }

    std::unique_ptr<Node> character(std::size_t at) {
        ++p_;
        if (p_ >= s_.size()) error("an unterminated character");
        std::int64_t v = static_cast<unsigned char>(s_[p_]);
        if (s_[p_] == '\\') {
            ++p_;
            if (p_ >= s_.size()) error("an unterminated character");
            switch (s_[p_]) {
            case 'n': v = '\n'; break;
            case 't': v = '\t'; break;
            case 'r': v = '\r'; break;
            case '0': v = 0; break;
            case '\\': v = '\\'; break;
            case '\'': v = '\''; break;
            default: error("an unknown escape");
            }
        }
        ++p_;
        if (!eat("'")) error("a closing quote expected");
        auto n = make(Op::Number, at);
        n->value = v;
        n->isChar = true;
        return n;
    }

    const std::string& s_;
    std::size_t p_ = 0;
};

// ---- evaluation ----------------------------------------------------------------------------

class Evaluator {
public:
    Evaluator(const std::string& text, const SourceValues* values, const SourceFrame& frame,
              const TargetMemory& memory)
        : text_(text), values_(values), frame_(frame), memory_(memory) {}

    SourceValue eval(const Node& n) {
        switch (n.op) {
        case Op::Number:
            return SourceValue::ofInteger(baseType(n.isChar ? "char" : n.isUnsigned ? "unsigned int" : "int"), n.value);
        case Op::Register: {
            SourceValue v;
            v.type = baseType(n.reg < 8 ? "long" : n.reg == FrameRegisters::kSr ? "unsigned short" : "unsigned long");
            v.where = SourceValue::Where::Register;
            v.reg = n.reg;
            if (!frame_.regs.known(n.reg)) fail(n, std::string("$") + FrameRegisters::name(n.reg) + " is not known in this frame");
            if (n.reg == FrameRegisters::kPc || n.reg == FrameRegisters::kSr)
                return SourceValue::ofInteger(v.type, frame_.regs[n.reg]); // read-only here
            return v;
        }
        case Op::Name: {
            if (!values_) fail(n, "no symbol \"" + n.name + "\": no debug information here");
            auto v = values_->lookup(frame_, memory_, n.name);
            if (!v) fail(n, "no symbol \"" + n.name + "\" in the current context");
            return v->value;
        }
        case Op::Member:
        case Op::Arrow: {
            SourceValue base = eval(*n.a);
            if (!values_) fail(n, "no debug information to read \"" + n.name + "\" with");
            if (n.op == Op::Arrow) base = derefOf(n, base);
            const SourceType& t = resolved(base);
            if (t.kind != Kind::Struct && t.kind != Kind::Union)
                fail(n, "\"" + n.name + "\": " + typeName(base) + " is not a struct or union" +
                            (t.kind == Kind::Pointer && n.op == Op::Member ? " (use ->)" : ""));
            auto m = values_->member(base, n.name, frame_, memory_);
            if (!m) fail(n, "there is no member named \"" + n.name + "\" in " + typeName(base));
            return *m;
        }
        case Op::Index: {
            const SourceValue base = eval(*n.a);
            const std::int64_t i = integer(*n.b, eval(*n.b));
            std::string why;
            auto e = values_ ? values_->element(base, i, frame_, memory_, &why) : std::nullopt;
            if (!e) fail(n, why.empty() ? "cannot index " + typeName(base) : why);
            return *e;
        }
        case Op::Deref: return derefOf(n, eval(*n.a));
        case Op::Address: {
            const SourceValue v = eval(*n.a);
            if (v.where != SourceValue::Where::Memory || v.bitSize)
                fail(n, v.where == SourceValue::Where::Register ? "cannot take the address of a value in a register"
                        : v.bitSize                              ? "cannot take the address of a bit-field"
                                                                 : "cannot take the address of a value not in memory");
            return SourceValue::ofInteger(pointerTo(v.type), v.address);
        }
        case Op::Negate:
        case Op::Plus:
        case Op::Complement: {
            const SourceValue v = eval(*n.a);
            const std::int64_t x = integer(*n.a, v);
            const TypePtr t = promoted(v, v);
            const std::int64_t r = n.op == Op::Negate ? -x : n.op == Op::Complement ? ~x : x;
            return SourceValue::ofInteger(t, r);
        }
        case Op::Not: return SourceValue::ofInteger(baseType("int"), truth(*n.a, eval(*n.a)) ? 0 : 1);
        case Op::Cast: {
            const SourceValue v = eval(*n.a);
            const SourceType& to = n.type->resolved();
            if (to.kind == Kind::Void) return SourceValue::optimizedOut(n.type);
            if (to.kind == Kind::Float) fail(n, "casts to floating point are not supported");
            return SourceValue::ofInteger(n.type, integer(*n.a, v));
        }
        case Op::SizeOf: {
            std::uint32_t size = 0;
            if (n.type) {
                size = n.type->resolved().size;
            } else {
                const SourceValue v = eval(*n.a);
                size = v.type ? v.type->resolved().size : 0;
            }
            return SourceValue::ofInteger(baseType("unsigned int"), size);
        }
        case Op::Binary: return binary(n);
        }
        fail(n, "an unknown operation");
    }

private:
    [[noreturn]] void fail(const Node& n, const std::string& what) const {
        throw ExpressionError(text_ + ": " + what + " (at column " + std::to_string(n.at + 1) + ")");
    }

    const SourceType& resolved(const SourceValue& v) const {
        static const SourceType unknown;
        return v.type ? v.type->resolved() : unknown;
    }
    static std::string typeName(const SourceValue& v) { return v.type ? v.type->name : "a value of no type"; }

    std::int64_t integer(const Node& n, const SourceValue& v) const {
        if (v.where == SourceValue::Where::OptimizedOut) fail(n, "the value is optimized out");
        std::string why;
        std::optional<std::int64_t> x;
        if (values_) {
            x = values_->integer(v, frame_, memory_, &why);
        } else if (v.where == SourceValue::Where::Register && v.reg >= 0 && frame_.regs.known(v.reg)) {
            x = std::int64_t(frame_.regs[v.reg]);
            if (v.type && v.type->resolved().isSigned) x = std::int64_t(std::int32_t(std::uint32_t(*x)));
        } else if (v.where == SourceValue::Where::Bytes) {
            x = bigEndianInteger(v.bytes, v.type && v.type->resolved().isSigned && v.type->resolved().kind != Kind::Pointer);
        }
        if (!x) fail(n, why.empty() ? "not a number: " + typeName(v) : why);
        return *x;
    }
    bool truth(const Node& n, const SourceValue& v) const { return integer(n, v) != 0; }

    SourceValue derefOf(const Node& n, const SourceValue& v) const {
        std::string why;
        auto d = values_ ? values_->deref(v, frame_, memory_, &why) : std::nullopt;
        if (!d) fail(n, why.empty() ? "cannot follow " + typeName(v) : why);
        return *d;
    }

    // The type C's usual arithmetic conversions give two integers.
    static TypePtr promoted(const SourceValue& x, const SourceValue& y) {
        const auto sizeOf = [](const SourceValue& v) { return v.type ? v.type->resolved().size : 4; };
        const auto unsignedOf = [](const SourceValue& v) {
            if (!v.type) return false;
            const SourceType& t = v.type->resolved();
            return t.kind == Kind::Pointer || (!t.isSigned && t.size >= 4);
        };
        const bool wide = sizeOf(x) > 4 || sizeOf(y) > 4;
        const bool isUnsigned = unsignedOf(x) || unsignedOf(y);
        return baseType(wide ? (isUnsigned ? "unsigned long long" : "long long") : (isUnsigned ? "unsigned int" : "int"));
    }

    SourceValue binary(const Node& n) {
        const std::string& op = n.name;
        if (op == "&&" || op == "||") {
            const bool left = truth(*n.a, eval(*n.a));
            if (op == "&&" && !left) return SourceValue::ofInteger(baseType("int"), 0);
            if (op == "||" && left) return SourceValue::ofInteger(baseType("int"), 1);
            return SourceValue::ofInteger(baseType("int"), truth(*n.b, eval(*n.b)) ? 1 : 0);
        }
        const SourceValue a = eval(*n.a), b = eval(*n.b);
        const SourceType& ta = resolved(a);
        const SourceType& tb = resolved(b);
        const bool pa = ta.kind == Kind::Pointer || ta.kind == Kind::Array;
        const bool pb = tb.kind == Kind::Pointer || tb.kind == Kind::Array;
        // Pointer arithmetic: scaled by what is pointed at.
        if ((op == "+" || op == "-") && (pa || pb)) {
            const auto address = [&](const Node& node, const SourceValue& v) -> std::int64_t {
                if (resolved(v).kind == Kind::Array) {
                    if (v.where != SourceValue::Where::Memory) fail(node, "an array not in memory");
                    return v.address;
                }
                return integer(node, v);
            };
            const auto stride = [&](const SourceType& t) -> std::int64_t {
                const std::uint32_t s = t.target ? t.target->resolved().size : 0;
                return s ? s : 1;
            };
            if (pa && pb) {
                if (op == "+") fail(n, "cannot add two pointers");
                return SourceValue::ofInteger(baseType("int"), (address(*n.a, a) - address(*n.b, b)) / stride(ta));
            }
            if (pb && op == "-") fail(n, "cannot subtract a pointer from a number");
            const Node& pn = pa ? *n.a : *n.b;
            const SourceValue& pv = pa ? a : b;
            const Node& in = pa ? *n.b : *n.a;
            const SourceValue& iv = pa ? b : a;
            const SourceType& pt = pa ? ta : tb;
            const std::int64_t k = integer(in, iv) * (op == "-" ? -1 : 1);
            const TypePtr type = pt.kind == Kind::Array ? pointerTo(pt.target) : pv.type;
            return SourceValue::ofInteger(type, address(pn, pv) + k * stride(pt));
        }
        const TypePtr t = promoted(a, b);
        const bool isUnsigned = !t->isSigned;
        const std::int64_t x = integer(*n.a, a), y = integer(*n.b, b);
        const auto ux = std::uint64_t(x), uy = std::uint64_t(y);
        const std::uint32_t bits = t->size * 8;
        const auto narrow = [&](std::uint64_t v) { return bits >= 64 ? v : v & ((1ull << bits) - 1); };
        const auto cmp = [&](auto f) {
            const bool r = isUnsigned ? f(narrow(ux), narrow(uy)) : f(x, y);
            return SourceValue::ofInteger(baseType("int"), r ? 1 : 0);
        };
        if (op == "==") return cmp([](auto l, auto r) { return l == r; });
        if (op == "!=") return cmp([](auto l, auto r) { return l != r; });
        if (op == "<") return cmp([](auto l, auto r) { return l < r; });
        if (op == ">") return cmp([](auto l, auto r) { return l > r; });
        if (op == "<=") return cmp([](auto l, auto r) { return l <= r; });
        if (op == ">=") return cmp([](auto l, auto r) { return l >= r; });
        std::int64_t r = 0;
        if (op == "+") r = x + y;
        else if (op == "-") r = x - y;
        else if (op == "*") r = x * y;
        else if (op == "/" || op == "%") {
            if (y == 0) fail(n, "division by zero");
            if (isUnsigned)
                r = std::int64_t(op == "/" ? narrow(ux) / narrow(uy) : narrow(ux) % narrow(uy));
            else
                r = op == "/" ? x / y : x % y;
        } else if (op == "&") r = x & y;
        else if (op == "|") r = x | y;
        else if (op == "^") r = x ^ y;
        else if (op == "<<") r = y < 0 || y >= 64 ? 0 : std::int64_t(ux << y);
        else if (op == ">>") r = y < 0 || y >= 64 ? 0 : isUnsigned ? std::int64_t(narrow(ux) >> y) : x >> y;
        else fail(n, "unknown operator " + op);
        return SourceValue::ofInteger(t, r);
    }

    const std::string& text_;
    const SourceValues* values_;
    const SourceFrame& frame_;
    const TargetMemory& memory_;
};

} // namespace

CExpression::CExpression(const std::string& text) : text_(text) {
    if (text.find_first_not_of(" \t") == std::string::npos) throw ExpressionError("an empty expression");
    if (text.size() > 4096) throw ExpressionError("an expression over 4096 characters");
    root_ = Parser(text_).parse();
}
CExpression::~CExpression() = default;
CExpression::CExpression(CExpression&&) noexcept = default;
CExpression& CExpression::operator=(CExpression&&) noexcept = default;

SourceValue CExpression::evaluate(const SourceValues* values, const SourceFrame& frame,
                                  const TargetMemory& memory) const {
    return Evaluator(text_, values, frame, memory).eval(*root_);
}

bool CExpression::test(const SourceValues* values, const SourceFrame& frame, const TargetMemory& memory) const {
    const SourceValue v = evaluate(values, frame, memory);
    std::string why;
    std::optional<std::int64_t> x;
    if (values) x = values->integer(v, frame, memory, &why);
    else if (v.where == SourceValue::Where::Bytes) x = bigEndianInteger(v.bytes, false);
    else if (v.where == SourceValue::Where::Register && frame.regs.known(v.reg)) x = frame.regs[v.reg];
    if (!x) throw ExpressionError(text_ + ": not a condition: " + (why.empty() ? "not a number" : why));
    return *x != 0;
}

std::vector<std::uint8_t> convertValue(const SourceValue& value, const TypePtr& to, const SourceValues* values,
                                       const SourceFrame& frame, const TargetMemory& memory) {
    if (!to) throw ExpressionError("no type to convert to");
    const SourceType& t = to->resolved();
    const SourceType* from = value.type ? &value.type->resolved() : nullptr;
    std::string why;
    switch (t.kind) {
    case Kind::Integer:
    case Kind::Enum:
    case Kind::Pointer:
    case Kind::Boolean: {
        std::optional<std::int64_t> x;
        if (values) x = values->integer(value, frame, memory, &why);
        else if (value.where == SourceValue::Where::Bytes) x = bigEndianInteger(value.bytes, from && from->isSigned);
        if (!x) throw ExpressionError("cannot assign " + (value.type ? value.type->name : std::string("it")) + " to " +
                                      to->name + (why.empty() ? "" : ": " + why));
        if (t.kind == Kind::Boolean) x = *x != 0;
        return bigEndianBytes(std::uint64_t(*x), std::max<std::uint32_t>(t.size, 1));
    }
    case Kind::Struct:
    case Kind::Union:
    case Kind::Float:
    case Kind::Array: {
        if (!from || from->name != t.name || from->size != t.size)
            throw ExpressionError("cannot assign " + (value.type ? value.type->name : std::string("it")) + " to " + to->name);
        if (!values) throw ExpressionError("no debug information to read the value");
        const auto bytes = values->read(value, frame, memory, &why);
        if (!bytes) throw ExpressionError(why);
        return *bytes;
    }
    default: throw ExpressionError("cannot assign to a value of type " + to->name);
    }
}

} // namespace copperline
