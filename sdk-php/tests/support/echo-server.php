<?php

declare(strict_types=1);

/*
 * Router for `php -S` in CurlTransportTest: answers with what it received, as JSON. `/slow`
 * answers after 2 s; `/status/{code}` answers that status with a Retry-After header.
 */

$path = (string) parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
if ($path === '/slow') {
    sleep(2);
}
if (preg_match('#^/status/(\d{3})$#', $path, $m) === 1) {
    http_response_code((int) $m[1]);
    header('Retry-After: 7');
}
header('Content-Type: application/json');
header('X-Repeated: a');
header('X-Repeated: b', false);
$headers = [];
foreach (getallheaders() as $name => $value) {
    $headers[strtolower($name)] = $value;
}
echo json_encode([
    'method' => $_SERVER['REQUEST_METHOD'],
    'uri' => $_SERVER['REQUEST_URI'],
    'headers' => $headers,
    'body' => file_get_contents('php://input'),
], JSON_UNESCAPED_SLASHES);
