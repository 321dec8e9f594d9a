#pragma once
// Runs an executable of the project (articula-run) for the end-to-end tests
// and collects its exit code and output.
#include <QtCore/QProcess>
#include <QtCore/QProcessEnvironment>
#include <QtCore/QStringList>

namespace articula::test {

struct RunResult {
  int exitCode = -1;
  bool crashed = false;
  QString out;
  QString err;
};

/// Runs `program` with `args` (and `env`), waiting up to five minutes.
inline RunResult runProgram(const QString& program, const QStringList& args,
                            const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
  QProcess p;
  p.setProgram(program);
  p.setArguments(args);
  p.setProcessEnvironment(env);
  p.start();
  RunResult r;
  if (!p.waitForStarted(30000) || !p.waitForFinished(300000)) {
    p.kill();
    p.waitForFinished();
    r.crashed = true;
    r.err = QStringLiteral("did not finish: ") + p.errorString();
    return r;
  }
  r.crashed = p.exitStatus() != QProcess::NormalExit;
  r.exitCode = p.exitCode();
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

}  // namespace articula::test
