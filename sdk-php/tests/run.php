<?php

declare(strict_types=1);

/*
 * The SDK's own tests, without PHPUnit (not installable here): every tests/unit/*Test.php returns
 * a list of named cases; each case throws on failure. Exits 1 when any case fails.
 *
 *   php tests/run.php            # all of them
 *   php tests/run.php Money      # the files whose name contains "Money"
 */

require __DIR__ . '/../autoload.php';
require __DIR__ . '/support/assert.php';
require __DIR__ . '/support/FakeTransport.php';

error_reporting(E_ALL);
set_error_handler(static function (int $severity, string $message, string $file, int $line): bool {
    if ((error_reporting() & $severity) === 0) {
        return false; // silenced with @ on purpose
    }
    throw new ErrorException($message, 0, $severity, $file, $line); // a notice or warning fails the case
});

$filter = $argv[1] ?? '';
$files = glob(__DIR__ . '/unit/*Test.php') ?: [];
sort($files);
$passed = 0;
$failures = [];
foreach ($files as $file) {
    $suite = basename($file, '.php');
    if ($filter !== '' && !str_contains($suite, $filter)) {
        continue;
    }
    /** @var array<string, callable(): void> $cases */
    $cases = require $file;
    foreach ($cases as $name => $case) {
        try {
            $case();
            $passed += 1;
            echo "ok - $suite: $name\n";
        } catch (Throwable $e) {
            $failures[] = "$suite: $name";
            echo "not ok - $suite: $name\n";
            echo '    ' . get_class($e) . ': ' . $e->getMessage() . "\n";
            echo '    at ' . $e->getFile() . ':' . $e->getLine() . "\n";
        }
    }
}
$failed = count($failures);
echo "\n$passed passed, $failed failed\n";
if ($passed + $failed === 0) {
    echo "no test cases ran\n";
    exit(1);
}
exit($failed === 0 ? 0 : 1);
