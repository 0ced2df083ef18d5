<?php
/**
 * Profile page template: HTML with PHP in between, the way a .php file
 * starts in HTML mode. $user and $posts come from the controller.
 */
$title = htmlspecialchars($user['name'], ENT_QUOTES, 'UTF-8');

function excerpt(string $text, int $max = 140): string
{
    $text = trim(strip_tags($text));
    if (mb_strlen($text) <= $max) {
        return $text;
    }
    $cut = mb_substr($text, 0, $max);
    $space = mb_strrpos($cut, ' ');
    return ($space === false ? $cut : mb_substr($cut, 0, $space)) . '…';
}
?>
<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title><?= $title ?> · Profile</title>
</head>
<body>
  <header class="profile">
    <img src="<?= htmlspecialchars($user['avatar']) ?>" alt="" width="96" height="96">
    <h1><?= $title ?></h1>
    <?php if (!empty($user['bio'])): ?>
      <p class="bio"><?= htmlspecialchars($user['bio']) ?></p>
    <?php endif; ?>
  </header>

  <main>
    <h2>Recent posts</h2>
    <?php if ($posts === []): ?>
      <p class="empty">Nothing posted yet.</p>
    <?php else: ?>
      <ul class="posts">
        <?php foreach ($posts as $post): ?>
          <li>
            <a href="/posts/<?= (int) $post['id'] ?>"><?= htmlspecialchars($post['title']) ?></a>
            <time datetime="<?= $post['published_at'] ?>"><?= date('j M Y', strtotime($post['published_at'])) ?></time>
            <p><?= htmlspecialchars(excerpt($post['body'])) ?></p>
          </li>
        <?php endforeach; ?>
      </ul>
    <?php endif; ?>
  </main>
</body>
</html>
