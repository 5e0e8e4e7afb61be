// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The C expressions the debugger evaluates (docs/debugger.md, "Expressions"): names of
// variables and enumerators, registers ($d0-$d7, $a0-$a7, $sp, $pc, $sr), integer and
// character constants, `.` `->` `[]` unary `*` and `&`, casts to the base types (and
// pointers to them), sizeof, arithmetic, shifts, bitwise and logical operators and
// comparisons. Evaluated in one frame against its variables.

#include "profiler/debuginfo/source_values.h"

#include <memory>
#include <string>

namespace copperline {

// An expression that does not parse, names nothing, or cannot be evaluated. The message says
// which and where.
class ExpressionError : public DebugInfoError {
public:
    using DebugInfoError::DebugInfoError;
};

class CExpression {
public:
    // Parses `text`. Throws ExpressionError for a syntax error.
    explicit CExpression(const std::string& text);
    ~CExpression();
    CExpression(CExpression&&) noexcept;
    CExpression& operator=(CExpression&&) noexcept;

    const std::string& text() const { return text_; }
    // The value in `frame`. `values` null: only constants and registers can be named.
    // Throws ExpressionError.
    SourceValue evaluate(const SourceValues* values, const SourceFrame& frame, const TargetMemory& memory) const;
    // Whether the value is true (nonzero), as a condition reads it.
    bool test(const SourceValues* values, const SourceFrame& frame, const TargetMemory& memory) const;

    struct Node;

private:
    std::string text_;
    std::unique_ptr<Node> root_;
};

// The bytes `value` makes as a `to` (an integer, enum, pointer or boolean from any of
// these; a struct from a struct of the same type). Throws ExpressionError.
std::vector<std::uint8_t> convertValue(const SourceValue& value, const TypePtr& to, const SourceValues* values,
                                       const SourceFrame& frame, const TargetMemory& memory);

} // namespace copperline
