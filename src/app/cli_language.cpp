#include "app/cli_language.h"

#include <iostream>

#include <CLI/CLI.hpp>

#include "core/regex_instances.h"  // <regex>, its code generated once

namespace labcheck {
namespace {

// CLI11 2.1's validator wording (Validators.hpp) in Russian.
std::string RussianValidatorDetail(std::string detail) {
  std::smatch m;
  if (std::regex_match(detail, m, std::regex(R"((.*) not in (\{.*\}))"))) return m[1].str() + " — не из " + m[2].str();
  if (std::regex_match(detail, m, std::regex(R"(Value (.*) not in range (.*))"))) {
    return "значение " + m[1].str() + " вне диапазона " + m[2].str();
  }
  if (std::regex_match(detail, m, std::regex(R"(Value (.*) ?(?:is not|not a) (positive|number).*)"))) {
    return m[1].str() + " — " + (m[2].str() == "positive" ? "не положительное число" : "не число");
  }
  return detail;
}

}  // namespace

Lang PeekLang(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--lang" && i + 1 < argc && std::string(argv[i + 1]) == "en") || a == "--lang=en") return Lang::En;
  }
  return Lang::Ru;
}

void LocalizeCli(CLI::App& app, Lang lang) {
  const bool ru = lang == Lang::Ru;
  if (ru) app.option_defaults()->group("Параметры");  // before the help flag, which is an option too
  app.set_help_flag("-h,--help", ru ? "показать эту справку и выйти" : "print this help and exit");
  if (!ru) return;
  auto formatter = app.get_formatter();
  formatter->label("Usage", "Использование");
  formatter->label("OPTIONS", "ПАРАМЕТРЫ");
  formatter->label("SUBCOMMAND", "ПОДКОМАНДА");
  formatter->label("SUBCOMMANDS", "ПОДКОМАНДЫ");
  formatter->label("REQUIRED", "ОБЯЗАТЕЛЕН");
  formatter->label("Positionals", "Позиционные аргументы");
  formatter->label("Env", "Переменная");
  formatter->label("Needs", "Требует");
  formatter->label("Excludes", "Исключает");
  app.group("Подкоманды");
}

void FinishLocalizingCli(CLI::App& app, Lang lang) {
  if (lang != Lang::Ru) return;
  // A subcommand's help flag is made before it copies the option defaults: its group is English.
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (CLI::Option* help = sub->get_help_ptr()) help->group("Параметры");
  }
}

std::string RussianParseError(const std::string& name, const std::string& message) {
  // Matched by the message: CLI11 fills the error's name with the app's name for some kinds.
  std::smatch m;
  if (std::regex_match(message, m, std::regex(R"(The following arguments? (?:was|were) not expected: (.*))"))) {
    return "лишний аргумент: " + m[1].str();
  }
  if (std::regex_match(message, m, std::regex(R"((\S+) is required)"))) return "не указан обязательный параметр " + m[1].str();
  if (message.find("subcommand is required") != std::string::npos) return "нужна подкоманда";
  if (std::regex_match(message, m, std::regex(R"(Could not convert: (.*))"))) {
    return "не удалось прочитать значение: " + m[1].str();
  }
  if (std::regex_match(message, m, std::regex(R"((\S+) excludes (\S+))"))) {
    return m[1].str() + " и " + m[2].str() + " нельзя указать вместе";
  }
  if (std::regex_match(message, m, std::regex(R"((\S+) requires (\S+))"))) return m[1].str() + " требует " + m[2].str();
  if (name == "ArgumentMismatch" && std::regex_match(message, m, std::regex(R"((\S+): .*)"))) {
    return "у параметра " + m[1].str() + " не хватает значения (или их слишком много)";
  }
  if (std::regex_match(message, m, std::regex(R"((-\S+|\w+): (.*))"))) {
    return "недопустимое значение параметра " + m[1].str() + ": " + RussianValidatorDetail(m[2].str());
  }
  return "ошибка в командной строке: " + message;
}

int ReportParseError(const CLI::App& app, const CLI::ParseError& error, Lang lang) {
  if (error.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(error);
  if (error.get_name() == "RuntimeError") return error.get_exit_code();
  const bool ru = lang == Lang::Ru;
  std::string help = "lab_check";
  if (const auto parsed = app.get_subcommands(); !parsed.empty()) help += " " + parsed.front()->get_name();
  help += " --help";
  std::cerr << "lab_check: " << (ru ? RussianParseError(error.get_name(), error.what()) : std::string(error.what()))
            << "\n"
            << (ru ? "Справка: " + help : "See " + help) << "\n";
  return error.get_exit_code();
}

}  // namespace labcheck
