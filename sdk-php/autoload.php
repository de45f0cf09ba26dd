<?php

declare(strict_types=1);

/*
 * For projects without Composer: `require __DIR__ . '/sdk-php/autoload.php';` maps the
 * `Tributary\` namespace onto src/ exactly as the PSR-4 rule of composer.json does.
 */

if (PHP_INT_SIZE < 8) {
    // Amounts are exact integers of minor units up to 999 999 999 999 999: they need 64-bit ints.
    throw new RuntimeException('The Tributary SDK needs a 64-bit PHP build.');
}

spl_autoload_register(static function (string $class): void {
    $prefix = 'Tributary\\';
    if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
        return;
    }
    $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
    if (is_file($file)) {
        require $file;
    }
});
