"""Players: rating slips (``player_ratings``) and game protection (``player_alerts``,
``player_alert_dealers``) from the warehouse's events."""
