#pragma once
// The real-robot models the tests share (example-robot-data, ...). They live
// outside the repository, in the folder the CMake cache variable
// ARTICULA_MODELS_DIR names (default: ../shared/models next to the checkout);
// articula_use_models(<target>) compiles that folder into a test.
//
// A test that needs a model file starts with ARTICULA_REQUIRE_MODEL(file).
// When the file is missing the test is skipped with a message naming the
// variable, except in CI (environment variable CI=true), where it fails: a
// CI run that skips every real robot proves nothing about them.
#include <QtCore/QByteArray>
#include <QtCore/QFileInfo>
#include <QtCore/QString>
#include <QtTest/QTest>

#include <filesystem>
#include <string>

#ifndef ARTICULA_MODELS_DIR
#error "ARTICULA_MODELS_DIR is not defined: call articula_use_models(<target>) in CMake"
#endif

namespace articula::test {

/// The models folder (ARTICULA_MODELS_DIR).
inline QString modelsDir() {
  return QStringLiteral(ARTICULA_MODELS_DIR);
}
inline std::filesystem::path modelsPath() {
  return std::filesystem::path(ARTICULA_MODELS_DIR);
}

/// A CI run (CI=true): missing models are an error there.
inline bool inCi() {
  return qgetenv("CI") == "true";
}

inline QString modelPathString(const QString& path) {
  return path;
}
inline QString modelPathString(const std::string& path) {
  return QString::fromStdString(path);
}
inline QString modelPathString(const std::filesystem::path& path) {
  return QString::fromStdString(path.string());
}

/// What a test says when `path` (a model file or folder) is missing.
inline QByteArray missingModelMessage(const QString& path) {
  QString message = path + QStringLiteral(" is missing: no real-robot models in ARTICULA_MODELS_DIR=") + modelsDir() +
                    QStringLiteral(" (set that CMake cache variable to the folder holding example-robot-data/)");
  if (inCi()) message += QStringLiteral("; CI=true, so missing models fail the test");
  return message.toLocal8Bit();
}

}  // namespace articula::test

/// Skips the current test (fails it when CI=true) unless `path` exists.
#define ARTICULA_REQUIRE_MODEL(path)                                                                    \
  do {                                                                                                  \
    const QString articulaModelPath = ::articula::test::modelPathString(path);                          \
    if (!QFileInfo::exists(articulaModelPath)) {                                                        \
      const QByteArray articulaModelMessage = ::articula::test::missingModelMessage(articulaModelPath); \
      if (::articula::test::inCi()) QFAIL(articulaModelMessage.constData());                            \
      QSKIP(articulaModelMessage.constData());                                                          \
    }                                                                                                   \
  } while (false)
