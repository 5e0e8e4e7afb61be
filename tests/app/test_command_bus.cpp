// SPDX-License-Identifier: GPL-3.0-or-later
// The command bus turns every failure into a structured error and never throws, and
// refuses a parameter a command does not declare before the command runs.

#include "app/control/command_bus.h"

#include <QtTest>

using namespace copperline;

class TestCommandBus : public QObject {
    Q_OBJECT

    CommandBus make() {
        CommandBus bus;
        bus.add("add", "Adds a and b.", {"a", "b"}, [](const nlohmann::json& p) {
            return nlohmann::json{{"sum", p.at("a").get<int>() + p.at("b").get<int>()}};
        });
        bus.add("fail", "Always fails.", [](const nlohmann::json&) -> nlohmann::json {
            throw CommandError(errc::CommandFailed, "it failed");
        });
        bus.add("crash", "Throws something unexpected.", [](const nlohmann::json&) -> nlohmann::json {
            throw 42;
        });
        return bus;
    }

private slots:
    void runsACommand() {
        const auto bus = make();
        const auto r = bus.call("add", {{"a", 2}, {"b", 40}});
        QVERIFY(r.ok);
        QCOMPARE(r.result.at("sum").get<int>(), 42);
        QCOMPARE(r.toJson().dump(), std::string(R"({"result":{"sum":42}})"));
    }

    void unknownMethod() {
        const auto r = make().call("nope");
        QVERIFY(!r.ok);
        QCOMPARE(r.errorCode, errc::MethodNotFound);
    }

    void wrongParameterTypes() {
        const auto bus = make();
        QCOMPARE(bus.call("add", {{"a", "two"}, {"b", 1}}).errorCode, errc::InvalidParams);
        QCOMPARE(bus.call("add", {{"a", 1}}).errorCode, errc::InvalidParams);
        QCOMPARE(bus.call("add", nlohmann::json::array({1, 2})).errorCode, errc::InvalidParams);
    }

    void handlerFailuresAreErrors() {
        const auto bus = make();
        const auto r = bus.call("fail");
        QCOMPARE(r.errorCode, errc::CommandFailed);
        QCOMPARE(r.errorMessage, std::string("it failed"));
        QCOMPARE(r.toJson().at("error").at("code").get<int>(), errc::CommandFailed);
        QCOMPARE(bus.call("crash").errorCode, errc::InternalError);
    }

    void unknownParametersAreRefusedBeforeTheCommandRuns() {
        CommandBus bus;
        int ran = 0;
        bus.add("watch", "", {"addr", "len", "access"}, [&ran](const nlohmann::json&) {
            ++ran;
            return nlohmann::json::object();
        });
        bus.add("none", "", [&ran](const nlohmann::json&) {
            ++ran;
            return nlohmann::json::object();
        });
        auto r = bus.call("watch", {{"addr", 4}, {"acess", "read"}});
        QCOMPARE(r.errorCode, errc::InvalidParams);
        QCOMPARE(r.errorMessage,
                 std::string("watch: unknown parameter \"acess\" (did you mean \"access\"?); it "
                             "takes addr, len, access"));
        r = bus.call("watch", {{"addr", 4}, {"length", 2}});
        QCOMPARE(r.errorMessage, std::string("watch: unknown parameter \"length\" (did you mean "
                                             "\"len\"?); it takes addr, len, access"));
        r = bus.call("watch", {{"zzz", 1}});
        QCOMPARE(r.errorMessage,
                 std::string("watch: unknown parameter \"zzz\"; it takes addr, len, access"));
        r = bus.call("none", {{"n", 1}});
        QCOMPARE(r.errorCode, errc::InvalidParams);
        QCOMPARE(r.errorMessage,
                 std::string("none: unknown parameter \"n\"; it takes no parameters"));
        // A null value is still a key the command does not take.
        QCOMPARE(bus.call("none", {{"n", nullptr}}).errorCode, errc::InvalidParams);
        QCOMPARE(ran, 0);
        QVERIFY(bus.call("watch", {{"addr", 4}, {"len", 2}, {"access", "read"}}).ok);
        QVERIFY(bus.call("none").ok);
        QVERIFY(bus.call("none", nlohmann::json()).ok);
        QCOMPARE(ran, 3);
        QCOMPARE(bus.params("watch"), (std::vector<std::string>{"addr", "len", "access"}));
        QVERIFY(bus.params("none").empty());
        QVERIFY(bus.params("nope").empty());
        // A declaration that names a parameter twice is a programming error.
        QVERIFY_THROWS_EXCEPTION(std::logic_error,
                                 bus.add("twice", "", {"a", "a"},
                                         [](const nlohmann::json&) { return nlohmann::json(); }));
    }

    void registryLists() {
        const auto bus = make();
        QCOMPARE(bus.names(), (std::vector<std::string>{"add", "crash", "fail"}));
        QVERIFY(bus.has("add"));
        QCOMPARE(bus.summary("add"), std::string("Adds a and b."));
        CommandBus again;
        again.add("x", "", [](const nlohmann::json&) { return nlohmann::json(); });
        QVERIFY_THROWS_EXCEPTION(std::logic_error,
                                 again.add("x", "", [](const nlohmann::json&) { return nlohmann::json(); }));
    }
};

QTEST_GUILESS_MAIN(TestCommandBus)
#include "test_command_bus.moc"
